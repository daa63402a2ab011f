"""The Dockerfile, read with BuildKit's own parser (PyPI `dockerfile`): the
images the manifests run exist as targets, base images are pinned, and the
runtime images carry no build tools. (No image is built here: that needs a
container runtime and the registries of the base images.)"""

import re

import dockerfile
import pytest

from farm import REPO

BUILD_TOOLS = re.compile(r"\b(build-essential|gcc|g\+\+|clang|make|cargo|rustc|rustup|python3?-pip|pip3?|python3?-venv)\b")
# An exact tag (a version x.y[.z] or a dated build) and the digest it had.
PINNED = re.compile(r"^[\w./-]+:[\w.-]*(\d+\.\d+|\d{8})[\w.-]*@sha256:[0-9a-f]{64}$")


def stages():
    """[(name, base, [commands])] in order, with ARG defaults substituted."""
    args, out = {}, []
    for c in dockerfile.parse_file(str(REPO / "Dockerfile")):
        if c.cmd == "ARG" and not out:
            k, _, v = c.value[0].partition("=")
            args[k] = v
        elif c.cmd == "FROM":
            base = re.sub(r"\$\{(\w+)\}|\$(\w+)", lambda m: args[m.group(1) or m.group(2)], c.value[0])
            name = c.value[2] if len(c.value) == 3 and c.value[1].upper() == "AS" else None
            out.append((name, base, []))
        else:
            assert out, f"{c.cmd} before the first FROM"
            out[-1][2].append(c)
    return out


def lineage(name):
    """A stage and the stages it is built FROM, down to an external image."""
    by_name = {s[0]: s for s in stages()}
    chain = []
    while name in by_name:
        chain.append(by_name[name])
        name = by_name[name][1]
    return chain


def env_of(chain, key):
    for _, _, commands in chain:
        for c in commands:
            if c.cmd == "ENV":
                values = dict(zip(c.value[::2], c.value[1::2]))
                if key in values:
                    return values[key]
    return None


def test_targets_exist_and_cpu_is_the_default():
    names = [s[0] for s in stages()]
    assert {"cpu", "cuda"} <= set(names)
    assert names[-1] == "cpu", "a plain `docker build .` (compose.yaml) must give the CPU image"


def test_base_images_are_pinned():
    names = {s[0] for s in stages()}
    for name, base, _ in stages():
        if base not in names:
            assert PINNED.match(base), f"stage {name}: {base} is not pinned by version tag and digest"


@pytest.mark.parametrize("target", ["cpu", "cuda"])
def test_runtime_images_have_no_build_tools(target):
    chain = lineage(target)
    for name, _, commands in chain:
        for c in commands:
            if c.cmd == "RUN":
                assert not BUILD_TOOLS.search(" ".join(c.value)), f"stage {name} installs or runs a build tool: {c.original}"
    users = [c.value[0] for _, _, cmds in chain for c in cmds if c.cmd == "USER"]
    assert users and users[0].split(":")[0] not in ("root", "0"), f"{target} runs as root"


@pytest.mark.parametrize("target, libtorch", [("cpu", "/opt/libtorch/torch/lib"), ("cuda", "/opt/torch-cuda/torch/lib")])
def test_one_binary_two_libtorches(target, libtorch):
    chain = lineage(target)
    (name, _, commands) = chain[0]
    copies = [c for c in commands if c.cmd == "COPY"]
    # Both binaries: `hfarm` hands what runs models to `hfarm-torch` beside it.
    assert any(
        c.flags == ("--from=build",) and c.value == ("/opt/hfarm-bin/", "/usr/local/bin/") for c in copies
    ), name
    assert env_of(chain, "LD_LIBRARY_PATH").split(":")[0] == libtorch
    entry = [c for _, _, cmds in chain for c in cmds if c.cmd == "ENTRYPOINT"]
    assert entry and entry[0].value == ("hfarm",)


def test_build_stage_uses_scripts_libtorch_and_the_workspace_lock():
    (_, _, commands) = lineage("build")[0]
    runs = " ".join(" ".join(c.value) for c in commands if c.cmd == "RUN")
    assert "./scripts/libtorch" in runs
    assert re.search(r"cargo build --release --locked", runs)
    assert re.search(r"cp target/release/hfarm target/release/hfarm-torch /opt/hfarm-bin/", runs)
