#!/usr/bin/env python3
"""The software bill of materials of a release: one SPDX 2.3 JSON document for its assets, made from
Debian's package database of the machine that built them (no network, no other tool).

  sbom.py --version V [--deb FILE] [--wheel FILE]... [--image NAME PACKAGES_FILE]... > perfgate.spdx.json

- the .deb: perfgate's package (its SHA-256), the Debian packages whose code is in the binary
  (linked statically or header-only: STATIC below, as packaging/copyright lists them) as CONTAINS,
  and those of its Depends field as DEPENDS_ON, each at the version installed here;
- a wheel: STATIC as for the .deb (the same binary), and the libraries it carries (perfgate/_bin/BUNDLED, or the copies auditwheel renamed into
  perfgate.libs/), each traced to the Debian package that holds it here (ldconfig, dpkg -S);
- an image: every Debian package installed in it, from PACKAGES_FILE, the output of
  `dpkg-query -W -f '${Package}\\t${Version}\\t${Architecture}\\n'` run in the image.
Release assets are listed by file name and SHA-256; SOURCE_DATE_EPOCH fixes the creation time.
tests/package/sbom_test.py checks it against dpkg's own answers.
"""
import argparse
import datetime
import hashlib
import json
import os
import re
import subprocess
import sys
import uuid
import zipfile

# Debian packages whose code is in /usr/bin/perfgate (ci/setup.sh installs them; packaging/copyright
# gives their notices), with the licence each declares there.
STATIC = {
    "libstdc++-12-dev": "GPL-3.0-or-later WITH GCC-exception-3.1",
    "libre2-dev": "BSD-3-Clause",
    "libyaml-cpp-dev": "MIT",
    "libboost-json1.81-dev": "BSL-1.0",
    "libfmt-dev": "MIT",
    "libcli11-dev": "BSD-3-Clause",
    "libkainjow-mustache-dev": "BSL-1.0",
}


def run(*command):
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout


def installed_version(package):
    """The version of a Debian package installed here, or None."""
    done = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", package], capture_output=True, text=True)
    version = done.stdout.strip() if done.returncode == 0 else ""
    return version or None


def sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def spdx_id(*parts):
    return "SPDXRef-" + re.sub(r"[^A-Za-z0-9.-]", "-", "-".join(parts))


def debian_package(name, version, arch="amd64", licence="NOASSERTION"):
    purl = f"pkg:deb/debian/{name}@{version}?arch={arch}&distro=debian-12" if version else f"pkg:deb/debian/{name}"
    return {"SPDXID": spdx_id("deb", name), "name": name, "versionInfo": version or "NOASSERTION",
            "supplier": "Organization: Debian", "downloadLocation": "NOASSERTION", "filesAnalyzed": False,
            "licenseConcluded": "NOASSERTION", "licenseDeclared": licence, "copyrightText": "NOASSERTION",
            "externalRefs": [{"referenceCategory": "PACKAGE-MANAGER", "referenceType": "purl", "referenceLocator": purl}]}


def asset(path, name, version, kind):
    return {"SPDXID": spdx_id(kind, os.path.basename(path)), "name": name, "versionInfo": version,
            "packageFileName": os.path.basename(path), "supplier": "Organization: perfgate maintainers",
            "downloadLocation": "NOASSERTION", "filesAnalyzed": False, "primaryPackagePurpose": kind.upper(),
            "checksums": [{"algorithm": "SHA256", "checksumValue": sha256(path)}],
            "licenseConcluded": "NOASSERTION", "licenseDeclared": "NOASSERTION", "copyrightText": "NOASSERTION"}


def library_package(soname):
    """The Debian package (name, version) holding the library `soname` (or a file of that name, as
    auditwheel names its copies after the library's file) here, or (None, None)."""
    done = subprocess.run(["dpkg", "-S", f"*/{soname}"], capture_output=True, text=True)
    owners = [line.split(":", 1)[0].split(",")[0].strip() for line in done.stdout.splitlines() if ": " in line]
    if owners:
        return owners[0], installed_version(owners[0])
    for line in run("/sbin/ldconfig", "-p").splitlines():
        match = re.match(r"\s*(\S+) \(libc6,x86-64[^)]*\) => (\S+)", line)
        if match and match.group(1) == soname:
            path = os.path.realpath(match.group(2))
            for candidate in (match.group(2), path, path.replace("/usr/lib/", "/lib/", 1)):
                done = subprocess.run(["dpkg", "-S", candidate], capture_output=True, text=True)
                if done.returncode == 0:
                    name = done.stdout.split(":", 1)[0]
                    return name, installed_version(name)
    return None, None


def wheel_libraries(path):
    """The sonames of the libraries a wheel carries: BUNDLED (patchelf) or perfgate.libs/ (auditwheel,
    which names each copy SONAME-STEM-HASH.so...)."""
    with zipfile.ZipFile(path) as wheel:
        names = wheel.namelist()
        bundled = [n for n in names if n.endswith("perfgate/_bin/BUNDLED")]
        sonames = wheel.read(bundled[0]).decode().split() if bundled else []
        for name in names:
            match = re.match(r"perfgate\.libs/(.+)-[0-9a-f]{8}(\.so.*)$", name)
            if match:
                sonames.append(match.group(1) + match.group(2))
    return sorted(set(sonames))


def document(args):
    packages, relationships = [], []
    known = {}

    def add_debian(name, version, arch="amd64", licence="NOASSERTION"):
        key = (name, version)
        if key not in known:
            known[key] = debian_package(name, version, arch, licence)
            known[key]["SPDXID"] = spdx_id("deb", name, version or "unknown")
            packages.append(known[key])
        return known[key]["SPDXID"]

    described = []
    if args.deb:
        fields = dict(line.split(": ", 1) for line in run("dpkg-deb", "-f", args.deb, "Package", "Version",
                                                            "Depends").splitlines() if ": " in line)
        deb = asset(args.deb, fields["Package"], fields["Version"], "application")
        packages.append(deb)
        described.append(deb["SPDXID"])
        for name, licence in STATIC.items():
            relationships.append((deb["SPDXID"], "CONTAINS", add_debian(name, installed_version(name), licence=licence)))
        for dependency in fields.get("Depends", "").split(","):
            name = dependency.split("(")[0].split("|")[0].strip()
            if name:
                relationships.append((deb["SPDXID"], "DEPENDS_ON", add_debian(name, installed_version(name))))
    for path in args.wheel or []:
        wheel = asset(path, "perfgate", args.version, "library")
        packages.append(wheel)
        described.append(wheel["SPDXID"])
        # The same binary as the .deb's: the same code in it.
        for name, licence in STATIC.items():
            relationships.append((wheel["SPDXID"], "CONTAINS", add_debian(name, installed_version(name), licence=licence)))
        for soname in wheel_libraries(path):
            name, version = library_package(soname)
            if name is None:
                raise SystemExit(f"sbom.py: {path} carries {soname}, which no Debian package here holds")
            relationships.append((wheel["SPDXID"], "CONTAINS", add_debian(name, version)))
    for image_name, listing in args.image or []:
        image = {"SPDXID": spdx_id("image", image_name), "name": image_name, "versionInfo": args.version,
                 "supplier": "Organization: perfgate maintainers", "downloadLocation": "NOASSERTION",
                 "filesAnalyzed": False, "primaryPackagePurpose": "CONTAINER", "licenseConcluded": "NOASSERTION",
                 "licenseDeclared": "NOASSERTION", "copyrightText": "NOASSERTION"}
        packages.append(image)
        described.append(image["SPDXID"])
        with open(listing, encoding="utf-8") as f:
            for line in f:
                fields = line.rstrip("\n").split("\t")
                if len(fields) >= 2 and fields[0]:
                    arch = fields[2] if len(fields) > 2 else "amd64"
                    relationships.append((image["SPDXID"], "CONTAINS", add_debian(fields[0], fields[1], arch)))
    if not described:
        raise SystemExit("sbom.py: nothing to describe (give --deb, --wheel or --image)")
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", datetime.datetime.now().timestamp()))
    created = datetime.datetime.fromtimestamp(epoch, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return {
        "spdxVersion": "SPDX-2.3", "dataLicense": "CC0-1.0", "SPDXID": "SPDXRef-DOCUMENT",
        "name": f"perfgate-{args.version}",
        "documentNamespace": f"https://spdx.org/spdxdocs/perfgate-{args.version}-{uuid.uuid4()}",
        "creationInfo": {"created": created, "creators": ["Tool: perfgate ci/sbom.py"]},
        "packages": packages,
        "relationships": [{"spdxElementId": "SPDXRef-DOCUMENT", "relationshipType": "DESCRIBES",
                           "relatedSpdxElement": d} for d in described] +
                         [{"spdxElementId": a, "relationshipType": kind, "relatedSpdxElement": b}
                          for a, kind, b in relationships],
    }


def main():
    parser = argparse.ArgumentParser(description="SPDX 2.3 JSON for perfgate's release assets")
    parser.add_argument("--version", required=True)
    parser.add_argument("--deb")
    parser.add_argument("--wheel", action="append")
    parser.add_argument("--image", nargs=2, action="append", metavar=("NAME", "PACKAGES_FILE"))
    json.dump(document(parser.parse_args()), sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
