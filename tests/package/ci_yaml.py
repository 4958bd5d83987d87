"""YAML as GitHub and GitLab read it (YAML 1.2's booleans: `on:` is a key, not True), for the CI
recipe tests (ci_recipes_test.py, ci_schema_test.py)."""
import re

import yaml


class Yaml12Loader(yaml.SafeLoader):
    """PyYAML's safe loader with only true and false as booleans (PyYAML follows YAML 1.1, where
    on, off, yes and no are booleans too)."""


Yaml12Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
Yaml12Loader.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
                                   list("tTfF"))


def load_yaml(path):
    with open(path, encoding="utf-8") as f:
        return yaml.load(f, Loader=Yaml12Loader)
