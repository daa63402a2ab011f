"""What the tests need to know about the farm and the manifests.

Facts about hfarm itself (environment variables, flag defaults, the Redis key
of a queue, the jobs table) are read from the Rust sources and migrations, so
the manifests are checked against the code they deploy, not against a copy of
it. Rendering goes through the real kustomize (`kubectl kustomize`).
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

import yaml

REPO = Path(__file__).resolve().parents[3]
DEPLOY = REPO / "deploy" / "kubernetes"
CRATES = REPO / "crates"
OVERLAYS = ["base", "overlays/self-contained", "overlays/managed"]
KUBERNETES_VERSION = "1.33.0"

WORKLOAD_KINDS = {"Deployment", "StatefulSet", "DaemonSet", "Job"}


# --- rendering ---------------------------------------------------------------


def kubectl() -> str:
    k = os.environ.get("KUBECTL")
    if not k:
        raise RuntimeError("KUBECTL is not set: run the tests through scripts/check-deploy")
    return k


def kustomize(directory: Path) -> list[dict]:
    """`kubectl kustomize DIR`, parsed; raises with kustomize's message on failure."""
    r = subprocess.run([kubectl(), "kustomize", str(directory)], capture_output=True, text=True)
    if r.returncode != 0:
        raise AssertionError(f"kubectl kustomize {directory} failed:\n{r.stderr}")
    return [d for d in yaml.safe_load_all(r.stdout) if d]


@functools.lru_cache(maxsize=None)
def rendered(overlay: str) -> tuple:
    return tuple(kustomize(DEPLOY / overlay))


# --- facts from the Rust sources ---------------------------------------------


@functools.lru_cache(maxsize=None)
def rust_source() -> str:
    return "\n".join(p.read_text() for p in sorted(CRATES.glob("*/src/**/*.rs")))


def _arg_field(field: str, attribute: str) -> str:
    """The value of `attribute = ...` in the clap `#[arg(...)]` on `pub FIELD:`."""
    pattern = r"#\[arg\(([^\]]*)\)\]\s*pub\s+" + field + r"\s*:"
    hits = {m.group(1) for m in re.finditer(pattern, rust_source())}
    values = set()
    for args in hits:
        m = re.search(attribute + r'\s*=\s*("[^"]*"|[\w.]+)', args)
        if m:
            values.add(m.group(1).strip('"'))
    if len(values) != 1:
        raise AssertionError(f"cannot find one `{attribute}` of the `{field}` argument in crates/*/src: {values}")
    return values.pop()


def env_var(field: str) -> str:
    """Environment variable of a command-line field, e.g. redis_prefix -> HFARM_REDIS_PREFIX."""
    return _arg_field(field, "env")


def worker_default(field: str) -> float:
    """Default of `hfarm worker --FIELD` (clap's default_value_t)."""
    return float(_arg_field(field, "default_value_t"))


def queue_key(prefix: str, resource_class: str) -> str:
    """The Redis list of a class's queue (its lane: `cpu`, `gpu`; crates/queue), by the format string in the code."""
    formats = set(re.findall(r'format!\(\s*"([^"]*:queue:[^"]*)"', rust_source()))
    if len(formats) != 1:
        raise AssertionError(f"expected one format of the queue key in crates/*/src, found {formats}")
    fmt = formats.pop()
    named = fmt.replace("{prefix}", "\0P").replace("{class}", "\0C").replace("{lane}", "\0C")
    if "\0P" not in named:  # positional: format!("{}:queue:{}", prefix, class)
        named = named.replace("{}", "\0P", 1).replace("{}", "\0C", 1)
    if "{" in named or "\0P" not in named or "\0C" not in named:
        raise AssertionError(f"cannot read the queue key format {fmt!r}")
    return named.replace("\0P", prefix).replace("\0C", resource_class)


@functools.lru_cache(maxsize=None)
def table_columns(table: str) -> set[str]:
    """The columns of `table` by the migrations (CREATE TABLE, then ADD COLUMN)."""
    sql = "\n".join(p.read_text() for p in sorted((CRATES / "schema" / "migrations").glob("*.sql")))
    m = re.search(rf"CREATE TABLE {table}\s*\((.*?)\n\);", sql, re.S)
    if not m:
        raise AssertionError(f"no CREATE TABLE {table} in crates/schema/migrations")
    columns = {line.split()[0] for line in m.group(1).splitlines() if line.strip() and not line.strip().startswith("--")}
    columns |= set(re.findall(rf"ALTER TABLE {table} ADD COLUMN (?:IF NOT EXISTS )?(\w+)", sql))
    return columns


def jobs_columns() -> set[str]:
    return table_columns("jobs")


def workers_columns() -> set[str]:
    return table_columns("workers")


# --- reading rendered objects ------------------------------------------------


def find(objects, kind: str, name: str | None = None) -> list[dict]:
    return [o for o in objects if o["kind"] == kind and (name is None or o["metadata"]["name"] == name)]


def pod_spec(obj: dict) -> dict | None:
    if obj["kind"] in WORKLOAD_KINDS:
        return obj["spec"]["template"]["spec"]
    return None


def workloads(objects) -> list[dict]:
    return [o for o in objects if o["kind"] in WORKLOAD_KINDS]


def parse_args(args: list[str]) -> tuple[str, dict[str, str]]:
    """`["worker", "--class=cpu", "--grace", "5"]` -> ("worker", {"class": "cpu", "grace": "5"})."""
    command, flags, i = args[0], {}, 1
    while i < len(args):
        a = args[i]
        assert a.startswith("--"), f"unexpected argument {a!r} in {args}"
        if "=" in a:
            k, v = a[2:].split("=", 1)
        elif i + 1 < len(args) and not args[i + 1].startswith("--"):
            k, v = a[2:], args[i + 1]
            i += 1
        else:
            k, v = a[2:], "true"
        flags[k] = v
        i += 1
    return command, flags


def hfarm_containers(objects, command: str):
    """(workload, container, flags) for every container running `hfarm COMMAND`."""
    out = []
    for w in workloads(objects):
        for c in pod_spec(w)["containers"]:
            args = c.get("args") or []
            if args and args[0] == command:
                out.append((w, c, parse_args(args)[1]))
    return out


def secret_ref(name: str, key: str) -> str:
    return f"secret.{name}.{key}"


_REF = re.compile(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)")


def expand(value: str, env: dict[str, str]) -> tuple[str, list[str]]:
    """Kubernetes' $(VAR) expansion; returns the value and the names left unresolved."""
    missing = []

    def sub(m):
        if m.group(0) == "$$":
            return "$"
        if m.group(1) in env:
            return env[m.group(1)]
        missing.append(m.group(1))
        return m.group(0)

    return _REF.sub(sub, value), missing


def container_env(container: dict, objects) -> tuple[dict[str, str], list[str]]:
    """The environment as the kubelet builds it (envFrom first, then env in
    order, each value expanded against what came before). Secret values are
    placeholders naming the secret and key. Returns the env and the
    references that did not resolve."""
    env: dict[str, str] = {}
    unresolved: list[str] = []
    for source in container.get("envFrom", []):
        prefix = source.get("prefix", "")
        if "configMapRef" in source:
            (cm,) = find(objects, "ConfigMap", source["configMapRef"]["name"]) or [None]
            assert cm is not None or source["configMapRef"].get("optional"), (
                f"envFrom names ConfigMap {source['configMapRef']['name']}, which is not rendered"
            )
            for k, v in (cm or {}).get("data", {}).items():
                env[prefix + k] = v
        elif "secretRef" in source:
            raise AssertionError("envFrom secretRef: name each secret key explicitly instead")
    for e in container.get("env", []):
        if "value" in e:
            v, missing = expand(e["value"], env)
            unresolved += [f"{e['name']}: $({m})" for m in missing]
            env[e["name"]] = v
        elif "valueFrom" in e and "secretKeyRef" in e["valueFrom"]:
            ref = e["valueFrom"]["secretKeyRef"]
            env[e["name"]] = secret_ref(ref["name"], ref["key"])
        elif "valueFrom" in e and "configMapKeyRef" in e["valueFrom"]:
            ref = e["valueFrom"]["configMapKeyRef"]
            (cm,) = find(objects, "ConfigMap", ref["name"])
            env[e["name"]] = cm["data"][ref["key"]]
        else:
            env[e["name"]] = "<field>"
    return env, unresolved


def redis_endpoint(url: str) -> tuple[str, int]:
    u = urlsplit(url)
    assert u.scheme == "redis", f"{url}: hfarm's Redis client speaks redis:// only"
    return u.hostname, u.port or 6379


def quantity(q) -> float:
    """A Kubernetes quantity as a number (cores, bytes)."""
    s = str(q)
    units = {"m": 1e-3, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "k": 1e3, "M": 1e6, "G": 1e9}
    for u, f in units.items():
        if s.endswith(u):
            return float(s[: -len(u)]) * f
    return float(s)
