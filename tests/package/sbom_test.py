#!/usr/bin/python3
"""CTest Release.Sbom (label `package`): ci/sbom.py's SPDX document for a release's assets says what
dpkg says, checked against dpkg's own answers here:
- the .deb (Package.Build's): its name, version and SHA-256; every package of its Depends field as
  DEPENDS_ON, at the version dpkg-query reports installed; the packages whose code is in the binary
  (libre2-dev, libyaml-cpp-dev, ...) as CONTAINS;
- a wheel that carries libz.so.1 (BUNDLED, as setup.py writes it) and one that carries
  auditwheel's renamed copy (perfgate.libs/libz-0123abcd.so.1.2.13): both CONTAIN the package that
  holds libz.so.1 here (dpkg -S);
- an image's package list: every package CONTAINED at its listed version;
- every SPDX id is unique and every relationship names a package of the document.
Usage: tests/package/sbom_test.py SOURCE_DIR PACKAGE_DIR VERSION
"""
import glob
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import zipfile

failures = 0


def check(ok, what):
    global failures
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures += 1


def dpkg_version(name):
    return subprocess.run(["dpkg-query", "-W", "-f", "${Version}", name], capture_output=True, text=True).stdout.strip()


def main():
    source, package_dir, version = sys.argv[1:4]
    debs = glob.glob(os.path.join(package_dir, f"perfgate_{version}_*.deb"))
    if not debs:
        sys.exit(f"FAIL: no package {package_dir}/perfgate_{version}_*.deb (Package.Build makes it)")
    deb = debs[0]
    depends = subprocess.run(["dpkg-deb", "-f", deb, "Depends"], capture_output=True, text=True, check=True).stdout
    depends = {d.split("(")[0].strip() for d in depends.split(",") if d.strip()}
    libz = os.path.realpath(subprocess.run(["sh", "-c", "/sbin/ldconfig -p | awk '$1 == \"libz.so.1\" && /x86-64/ {print $NF; exit}'"],
                                           capture_output=True, text=True).stdout.strip())
    owner = subprocess.run(["dpkg", "-S", libz], capture_output=True, text=True).stdout.split(":")[0] or \
        subprocess.run(["dpkg", "-S", libz.replace("/usr/lib/", "/lib/", 1)], capture_output=True, text=True).stdout.split(":")[0]
    with tempfile.TemporaryDirectory() as work:
        bundled = os.path.join(work, f"perfgate-{version}-py3-none-linux_x86_64.whl")
        with zipfile.ZipFile(bundled, "w") as wheel:
            wheel.writestr("perfgate/_bin/BUNDLED", "libz.so.1\n")
        repaired = os.path.join(work, f"perfgate-{version}-py3-none-manylinux_2_36_x86_64.whl")
        with zipfile.ZipFile(repaired, "w") as wheel:
            wheel.writestr("perfgate.libs/libz-0123abcd.so.1.2.13", "")
        listing = os.path.join(work, "image-packages.txt")
        with open(listing, "w") as f:
            f.write("base-files\t12.4+deb12u5\tamd64\nperfgate\t0.1.0\tamd64\npython3.11\t3.11.2-6\tamd64\n")
        done = subprocess.run([sys.executable, os.path.join(source, "ci", "sbom.py"), "--version", version, "--deb", deb,
                               "--wheel", bundled, "--wheel", repaired, "--image", "perfgate-image", listing],
                              capture_output=True, text=True, env=dict(os.environ, SOURCE_DATE_EPOCH="1700000000"))
        check(done.returncode == 0, f"sbom.py exits 0 ({done.stderr.strip()[:200]})")
        document = json.loads(done.stdout)
    by_id = {p["SPDXID"]: p for p in document["packages"]}
    check(len(by_id) == len(document["packages"]), "every SPDX id is unique")
    check(document["spdxVersion"] == "SPDX-2.3" and document["creationInfo"]["created"] == "2023-11-14T22:13:20Z",
          "SPDX 2.3, created at SOURCE_DATE_EPOCH")
    relations = [(r["spdxElementId"], r["relationshipType"], r["relatedSpdxElement"]) for r in document["relationships"]]
    check(all(a in by_id or a == "SPDXRef-DOCUMENT" for a, _, _ in relations) and all(b in by_id for _, _, b in relations),
          "every relationship names a package of the document")
    described = [by_id[b] for a, kind, b in relations if kind == "DESCRIBES"]
    deb_package = next(p for p in described if p.get("packageFileName") == os.path.basename(deb))
    with open(deb, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    check(deb_package["name"] == "perfgate" and deb_package["versionInfo"] == version, "the .deb: perfgate at its version")
    check(deb_package["checksums"] == [{"algorithm": "SHA256", "checksumValue": digest}], "the .deb: its SHA-256")

    def related(element, kind):
        return {(by_id[b]["name"], by_id[b]["versionInfo"]) for a, k, b in relations if a == element and k == kind}
    expected = {(name, dpkg_version(name)) for name in depends}
    check(related(deb_package["SPDXID"], "DEPENDS_ON") == expected,
          f"the .deb DEPENDS_ON its Depends at the installed versions ({sorted(expected)})")
    contained = {name for name, _ in related(deb_package["SPDXID"], "CONTAINS")}
    check({"libre2-dev", "libyaml-cpp-dev", "libboost-json1.81-dev", "libfmt-dev"} <= contained,
          "the .deb CONTAINS the statically linked and header-only libraries")
    for wheel in (bundled, repaired):
        package = next(p for p in described if p.get("packageFileName") == os.path.basename(wheel))
        check((owner, dpkg_version(owner)) in related(package["SPDXID"], "CONTAINS"),
              f"{os.path.basename(wheel)}: CONTAINS {owner} (which holds {libz})")
    image = next(p for p in described if p["name"] == "perfgate-image")
    check(related(image["SPDXID"], "CONTAINS") == {("base-files", "12.4+deb12u5"), ("perfgate", "0.1.0"),
                                                   ("python3.11", "3.11.2-6")}, "the image CONTAINS its listed packages")


if __name__ == "__main__":
    main()
    print(f"{failures} failed")
    sys.exit(1 if failures else 0)
