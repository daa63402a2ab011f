"""The invariants that keep a deployed farm correct, on the rendered overlays,
checked against what the Rust code reads (farm.py)."""

import os
import re
from pathlib import Path

from urllib.parse import urlsplit

import pytest
import yaml

from farm import (
    DEPLOY,
    OVERLAYS,
    container_env,
    env_var,
    find,
    hfarm_containers,
    jobs_columns,
    workers_columns,
    kustomize,
    pod_spec,
    quantity,
    queue_key,
    redis_endpoint,
    rendered,
    rust_source,
    secret_ref,
    worker_default,
    workloads,
)

# Margin on top of --grace for the hand-back (one UPDATE and one LPUSH) and
# the last pop (a 1 s BRPOP) before the kubelet's SIGKILL.
STOP_MARGIN_S = 10
# Connections of one hfarm process (schema::connect: a pool of up to 16).
POOL_MAX = 16

FARM_SETTINGS = ["database_url", "redis_url", "redis_prefix"]



def served_route(path: str) -> bool:
    """Whether the status server serves `path`: an axum `.route("path", ...)`
    or a handler registered with utoipa's `#[utoipa::path(..., path = "path")]`
    (the API's routes go through `routes!`, which reads that attribute)."""
    source = rust_source()
    quoted = re.escape(f'"{path}"')
    return bool(re.search(r"\.route\(\s*" + quoted, source) or re.search(r"utoipa::path\([^)]*path\s*=\s*" + quoted, source))

def coordinator(objects):
    found = hfarm_containers(objects, "serve")
    assert len(found) == 1, f"expected one `hfarm serve` container, found {len(found)}"
    return found[0]


def workers(objects):
    found = hfarm_containers(objects, "worker")
    assert found, "no `hfarm worker` containers"
    return found


def worker_setting(flags, name):
    return float(flags.get(name, worker_default(name)))


def worker_class(flags):
    return flags.get("class", "cpu")


def scaled_object_for(objects, workload):
    sos = [so for so in find(objects, "ScaledObject") if so["spec"]["scaleTargetRef"]["name"] == workload["metadata"]["name"]]
    assert len(sos) == 1, f"{workload['metadata']['name']}: expected one ScaledObject, found {len(sos)}"
    return sos[0]


def trigger(so, kind):
    ts = triggers(so, kind)
    assert len(ts) == 1, f"{so['metadata']['name']}: expected one {kind} trigger"
    return ts[0]


def triggers(so, kind):
    return [t for t in so["spec"]["triggers"] if t["type"] == kind]


# The lanes a worker of each class pops on a deployed farm, where the GPU
# workers have CUDA (`jobs::spec::Lane::served(class, cuda = true for GPU
# workers, cuda_alive = true)`): the queues its autoscaler must watch.
LANES = {"cpu": ["cpu"], "gpu": ["gpu", "gpu-preferred"]}


def test_lanes_are_the_codes():
    """LANES names lanes the code has, and a CUDA worker serves exactly those."""
    spec = (Path(__file__).resolve().parents[3] / "crates" / "jobs" / "src" / "spec.rs").read_text()
    names = set(re.findall(r'Lane::\w+ => "([a-z-]+)"', spec))
    assert {lane for lanes in LANES.values() for lane in lanes} <= names, names
    assert re.search(r"Resource::Gpu if cuda => vec!\[Lane::Gpu, Lane::GpuPreferred\]", spec)
    assert re.search(r"Resource::Cpu => vec!\[Lane::Cpu\]", spec)


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_env_references_resolve(overlay):
    """Every $(VAR) in an hfarm container's env and args names a variable
    defined before it (the kubelet leaves others as literal text)."""
    objects = rendered(overlay)
    for w in workloads(objects):
        for c in pod_spec(w)["containers"]:
            env, unresolved = container_env(c, objects)
            for a in c.get("args", []) + c.get("command", []):
                unresolved += [f"arg {a}: $({m})" for m in re.findall(r"\$\((\w+)\)", a) if m not in env]
            assert not unresolved, f"{w['metadata']['name']}/{c['name']}: unresolved {unresolved}"


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_flags_exist(overlay):
    """Every flag given to `hfarm serve` or `hfarm worker` is one the code
    defines (a clap field of that name)."""
    source = rust_source()
    for command in ("serve", "worker"):
        for w, _, flags in hfarm_containers(rendered(overlay), command):
            for flag in flags:
                field = flag.replace("-", "_")
                assert re.search(rf"#\[arg\([^\]]*\)\]\s*pub\s+{field}\s*:", source), (
                    f"{w['metadata']['name']}: `hfarm {command} --{flag}` is not an argument in crates/*/src"
                )


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_workers_use_the_coordinators_settings(overlay):
    """Same PostgreSQL, same Redis, same key prefix as the scheduler, read
    from the environment variables the code reads."""
    objects = rendered(overlay)
    _, c, _ = coordinator(objects)
    coord_env, _ = container_env(c, objects)
    for field in FARM_SETTINGS:
        name = env_var(field)
        assert name in coord_env, f"the coordinator does not set {name}"
        for w, wc, _ in workers(objects):
            env, _ = container_env(wc, objects)
            assert env.get(name) == coord_env[name], (
                f"{w['metadata']['name']}: {name}={env.get(name)!r}, the coordinator has {coord_env[name]!r}"
            )
    assert coord_env.get(env_var("api_token")) == secret_ref("hfarm-secrets", "HFARM_API_TOKEN")


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_autoscaler_watches_the_queue_the_workers_pop(overlay):
    objects = rendered(overlay)
    for w, c, flags in workers(objects):
        name = w["metadata"]["name"]
        env, _ = container_env(c, objects)
        so = scaled_object_for(objects, w)
        cls = worker_class(flags)
        slots = int(worker_setting(flags, "concurrency"))

        # One Redis trigger per lane the class pops, each on that lane's list.
        watched = sorted(t["metadata"]["listName"] for t in triggers(so, "redis"))
        assert watched == sorted(queue_key(env[env_var("redis_prefix")], lane) for lane in LANES[cls]), name
        for t in triggers(so, "redis"):
            redis = t["metadata"]
            # KEDA reads the address and password from this container's env: the
            # same values the worker's REDIS_URL is made of.
            host, port = redis_endpoint(env[env_var("redis_url")])
            assert env[redis["hostFromEnv"]] == host, name
            assert int(env[redis["portFromEnv"]]) == port, name
            password = urlsplit(env[env_var("redis_url")]).password
            keda_password = redis.get("passwordFromEnv")
            assert (env.get(keda_password) if keda_password else None) == password, (
                f"{name}: KEDA's Redis password ({keda_password}) is not the one in REDIS_URL"
            )
            assert int(redis.get("databaseIndex", 0)) == 0 and not re.search(r":\d+/\d", env[env_var("redis_url")])
            # Jobs per replica = its slots.
            assert int(redis["listLength"]) == slots, name

        # Running: the jobs workers of this class hold, whatever their lane.
        pg = trigger(so, "postgresql")["metadata"]
        assert pg["connectionFromEnv"] == env_var("database_url"), name
        query = " ".join(pg["query"].split())
        assert re.search(rf"\bw\.class\s*=\s*'{cls}'", query) and re.search(r"\bstatus\s*=\s*'running'", query), query
        assert re.search(r"JOIN workers w ON j\.worker LIKE w\.id \|\| '/%'", query), query
        assert {"worker", "status"} <= jobs_columns() and {"id", "class"} <= workers_columns()

        assert float(pg["targetQueryValue"]) == slots, name
        mods = so["spec"]["advanced"]["scalingModifiers"]
        assert float(mods["target"]) == slots and mods["metricType"] == "AverageValue", name
        # The formula sums every trigger, each once.
        terms = [x.strip() for x in mods["formula"].split("+")]
        assert sorted(terms) == sorted(t["name"] for t in so["spec"]["triggers"]), mods["formula"]

        # A job of a lost worker stays `running` until its lease expires: the
        # class must not go to sleep sooner.
        assert so["spec"].get("cooldownPeriod", 300) > worker_setting(flags, "lease"), name


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_replicas_belong_to_keda(overlay):
    objects = rendered(overlay)
    for so in find(objects, "ScaledObject"):
        target = so["spec"]["scaleTargetRef"]
        assert target.get("kind", "Deployment") == "Deployment"
        (d,) = find(objects, "Deployment", target["name"])
        assert "replicas" not in d["spec"], f"{target['name']}: `replicas` would fight the autoscaler on every apply"
        assert so["spec"]["minReplicaCount"] <= so["spec"]["maxReplicaCount"]


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_grace_period_covers_the_workers_stop(overlay):
    for w, _, flags in workers(rendered(overlay)):
        grace = worker_setting(flags, "grace")
        period = pod_spec(w).get("terminationGracePeriodSeconds", 30)
        assert period >= grace + STOP_MARGIN_S, (
            f"{w['metadata']['name']}: terminationGracePeriodSeconds {period} < --grace {grace} + {STOP_MARGIN_S}"
        )


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_gpu_workers_get_a_gpu_and_scale_to_zero(overlay):
    objects = rendered(overlay)
    classes = set()
    for w, c, flags in workers(objects):
        cls = worker_class(flags)
        classes.add(cls)
        spec = pod_spec(w)
        limits = c["resources"].get("limits", {})
        image = c["image"].split("@")[0].rsplit(":", 1)[0]
        if cls == "gpu":
            assert int(limits.get("nvidia.com/gpu", 0)) >= 1, f"{w['metadata']['name']} requests no GPU"
            assert image.endswith("hfarm-cuda"), f"{w['metadata']['name']}: {c['image']} is not the CUDA image"
            assert any(t.get("key") == "nvidia.com/gpu" for t in spec.get("tolerations", []))
            assert spec.get("nodeSelector") or spec.get("affinity", {}).get("nodeAffinity")
            assert scaled_object_for(objects, w)["spec"]["minReplicaCount"] == 0
        else:
            assert "nvidia.com/gpu" not in limits
            assert not image.endswith("cuda")
    assert classes == {"cpu", "gpu"}


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_one_scheduler(overlay):
    objects = rendered(overlay)
    w, c, flags = coordinator(objects)
    assert w["kind"] == "Deployment" and w["spec"]["replicas"] == 1
    assert w["spec"]["strategy"]["type"] == "Recreate"
    labels = w["spec"]["template"]["metadata"]["labels"]
    pdbs = [p for p in find(objects, "PodDisruptionBudget") if p["spec"]["selector"]["matchLabels"].items() <= labels.items()]
    assert len(pdbs) == 1 and pdbs[0]["spec"].get("minAvailable") == 1

    # Probes on /healthz (a route of the API), on the port `serve --listen` binds.
    assert served_route("/healthz")
    listen_port = int(flags["listen"].rsplit(":", 1)[1])
    ports = {p.get("name"): p["containerPort"] for p in c["ports"]}
    assert listen_port in ports.values()
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        get = c[probe]["httpGet"]
        assert get["path"] == "/healthz", probe
        assert ports.get(get["port"], get["port"]) == listen_port, probe


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_prometheus_scrapes_the_coordinator(overlay):
    objects = rendered(overlay)
    w, c, flags = coordinator(objects)
    labels = w["spec"]["template"]["metadata"]["labels"]
    (svc,) = [s for s in find(objects, "Service") if s["spec"]["selector"].items() <= labels.items()]
    listen_port = int(flags["listen"].rsplit(":", 1)[1])
    (port,) = [p for p in svc["spec"]["ports"] if p["targetPort"] in (listen_port, *[q["name"] for q in c["ports"] if q["containerPort"] == listen_port])]
    (cm,) = find(objects, "ConfigMap", "hfarm-prometheus")
    config = yaml.safe_load(cm["data"]["prometheus.yml"])
    (job,) = config["scrape_configs"]
    assert job.get("metrics_path", "/metrics") == "/metrics"
    assert served_route("/metrics")
    targets = [t for sc in job["static_configs"] for t in sc["targets"]]
    assert targets == [f"{svc['metadata']['name']}.{svc['metadata']['namespace']}.svc:{port['port']}"]


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_resources_and_images(overlay):
    for w in workloads(rendered(overlay)):
        spec = pod_spec(w)
        for c in spec.get("initContainers", []) + spec["containers"]:
            where = f"{w['metadata']['name']}/{c['name']}"
            for part in ("requests", "limits"):
                assert {"cpu", "memory"} <= set(c.get("resources", {}).get(part, {})), f"{where}: no cpu/memory {part}"
            req, lim = c["resources"]["requests"], c["resources"]["limits"]
            for r in req:
                assert quantity(req[r]) <= quantity(lim.get(r, req[r])), f"{where}: {r} request above its limit"
            image = c["image"]
            if image.split("@")[0].rsplit(":", 1)[0].split("/")[-1] in ("hfarm", "hfarm-cuda"):
                assert not image.endswith(":latest")
            else:  # third-party images: an exact version or a digest
                assert "@sha256:" in image or re.search(r":\d+(\.\d+)+(-|$)", image), f"{where}: {image} is not pinned"


def documented_secret_keys(overlay: str) -> set[str]:
    text = (DEPLOY / overlay / "kustomization.yaml").read_text()
    return set(re.findall(r"--from-literal=([A-Z_]+)=", text))


@pytest.mark.parametrize("overlay", [o for o in OVERLAYS if o.startswith("overlays/")])
def test_secret_keys_are_documented(overlay):
    """Every secret key a pod needs is in the overlay's creation command."""
    documented = documented_secret_keys(overlay)
    for w in workloads(rendered(overlay)):
        for c in pod_spec(w)["containers"]:
            for e in c.get("env", []):
                ref = e.get("valueFrom", {}).get("secretKeyRef")
                if ref:
                    assert ref["name"] == "hfarm-secrets", f"{w['metadata']['name']}: secret {ref['name']}"
                    assert ref.get("optional") or ref["key"] in documented, (
                        f"{overlay}: {ref['key']} is needed but not in the kustomization's secret command"
                    )


def test_self_contained_postgres_takes_every_connection():
    objects = rendered("overlays/self-contained")
    (pg,) = find(objects, "StatefulSet", "hfarm-postgres")
    args = " ".join(pod_spec(pg)["containers"][0].get("args", []))
    m = re.search(r"max_connections=(\d+)", args)
    assert m, "set max_connections explicitly"
    need = POOL_MAX  # the coordinator
    for w, _, flags in workers(objects):
        slots = int(worker_setting(flags, "concurrency"))
        need += scaled_object_for(objects, w)["spec"]["maxReplicaCount"] * min(POOL_MAX, 2 * slots + 1)
    assert int(m.group(1)) >= need + 10, f"max_connections {m.group(1)} < {need} + 10 for superuser and KEDA"


def test_self_contained_data_stores_admit_the_farm():
    objects = rendered("overlays/self-contained")
    (np,) = find(objects, "NetworkPolicy")
    allowed = [p["podSelector"]["matchLabels"] for rule in np["spec"]["ingress"] for p in rule["from"] if "podSelector" in p]
    for w in workloads(objects):
        labels = w["spec"]["template"]["metadata"]["labels"]
        if labels.get("app.kubernetes.io/name") == "hfarm":
            assert any(sel.items() <= labels.items() for sel in allowed), w["metadata"]["name"]
    env, _ = container_env(coordinator(objects)[1], objects)
    host, port = redis_endpoint(env[env_var("redis_url")])
    assert find(objects, "Service", host) and find(objects, "Service", host)[0]["spec"]["ports"][0]["port"] == port


def readme_scale_out() -> str:
    readme = (DEPLOY.parents[1] / "README.md").read_text()
    section = readme.split("\n## Scale out\n", 1)
    assert len(section) == 2, "README.md has no `## Scale out` section"
    return section[1].split("\n## ", 1)[0]


def test_readme_recipe_moves_images_and_prefix_together(tmp_path):
    """The README's `local/` overlay, plus a prefix of one's own: every
    container gets its image, and the coordinator, the workers and KEDA all
    move to the new prefix."""
    m = re.search(r"cat > deploy/kubernetes/local/kustomization.yaml <<YAML\n(.*?)\nYAML\n", readme_scale_out(), re.S)
    assert m, "README's Scale out section lost its local/kustomization.yaml"
    up = os.path.relpath(DEPLOY, tmp_path)
    text = m.group(1).replace("$REG", "registry.example.com/lab").replace("../", up + "/")
    text += "\nconfigMapGenerator:\n  - {name: hfarm-settings, behavior: merge, literals: [HFARM_REDIS_PREFIX=lab-a]}\n"
    (tmp_path / "kustomization.yaml").write_text(text)
    objects = kustomize(tmp_path)
    _, c, _ = coordinator(objects)
    assert container_env(c, objects)[0][env_var("redis_prefix")] == "lab-a"
    assert c["image"] == "registry.example.com/lab/hfarm:0.1.0"
    for w, wc, flags in workers(objects):
        env, _ = container_env(wc, objects)
        assert env[env_var("redis_prefix")] == "lab-a"
        listnames = sorted(t["metadata"]["listName"] for t in triggers(scaled_object_for(objects, w), "redis"))
        assert listnames == sorted(queue_key("lab-a", lane) for lane in LANES[worker_class(flags)])
        cuda = "-cuda" if worker_class(flags) == "gpu" else ""
        assert wc["image"] == f"registry.example.com/lab/hfarm{cuda}:0.1.0"


def test_scale_out_readme_names_the_keda_fixture():
    """README's KEDA version is the one the ScaledObjects are validated against."""
    (fixture,) = (Path(__file__).parent / "fixtures").glob("keda-*")
    version = fixture.name.split("-", 1)[1]
    assert f"KEDA {version}" in readme_scale_out()
