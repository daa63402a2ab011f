"""Every overlay renders with kustomize, and every rendered object is valid
against the schemas a cluster would check it with: the Kubernetes API's
(kubernetes-validate, strict: unknown fields refused) and, for KEDA's
ScaledObject, the OpenAPI schema of KEDA's own CRD (fixtures/)."""

import copy
import re
from pathlib import Path

import jsonschema
import kubernetes_validate
import pytest
import yaml

from farm import KUBERNETES_VERSION, OVERLAYS, find, rendered

KEDA_CRDS = sorted((Path(__file__).parent / "fixtures").glob("keda-*/keda.sh_*.yaml"))


def crd_schemas() -> dict:
    """(apiVersion, kind) -> the strict JSON schema of every CRD fixture."""
    out = {}
    for path in KEDA_CRDS:
        crd = yaml.safe_load(path.read_text())
        group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
        for v in crd["spec"]["versions"]:
            if v.get("served"):
                out[(f"{group}/{v['name']}", kind)] = strict(v["schema"]["openAPIV3Schema"])
    return out


def strict(schema):
    """The schema with unknown fields refused wherever the API server would
    prune them (objects with properties, unless they preserve unknown fields),
    as `kubectl apply`'s strict field validation reports them."""
    schema = copy.deepcopy(schema)

    def walk(s):
        if isinstance(s, dict):
            if (
                s.get("type") == "object"
                and "properties" in s
                and "additionalProperties" not in s
                and not s.get("x-kubernetes-preserve-unknown-fields")
            ):
                s["additionalProperties"] = False
            for v in s.values():
                walk(v)
        elif isinstance(s, list):
            for v in s:
                walk(v)

    walk(schema)
    return schema


CRDS = crd_schemas()


def test_crd_fixtures_present():
    assert ("keda.sh/v1alpha1", "ScaledObject") in CRDS


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_renders(overlay):
    objects = rendered(overlay)
    assert objects, f"{overlay} renders nothing"
    names = [(o["kind"], o["metadata"].get("namespace"), o["metadata"]["name"]) for o in objects]
    assert len(names) == len(set(names)), f"{overlay}: duplicate objects"
    # Credentials never come from git: Secrets are created by hand (README).
    assert not find(objects, "Secret"), f"{overlay} renders a Secret"


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_kubernetes_schemas(overlay):
    errors = []
    for o in rendered(overlay):
        if (o["apiVersion"], o["kind"]) in CRDS:
            continue
        try:
            kubernetes_validate.validate(o, KUBERNETES_VERSION, strict=True)
        except kubernetes_validate.ValidationError as e:
            errors.append(f"{o['kind']}/{o['metadata']['name']}: {'.'.join(map(str, e.path))}: {e.message}")
        except kubernetes_validate.SchemaNotFoundError:
            errors.append(f"{o['kind']} ({o['apiVersion']}): no schema in Kubernetes {KUBERNETES_VERSION} or the CRD fixtures")
    assert not errors, "\n".join(errors)


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_keda_schemas(overlay):
    errors = []
    scaled = [o for o in rendered(overlay) if (o["apiVersion"], o["kind"]) in CRDS]
    assert scaled, f"{overlay}: no KEDA objects"
    for o in scaled:
        schema = CRDS[(o["apiVersion"], o["kind"])]
        for e in jsonschema.Draft7Validator(schema).iter_errors(o):
            errors.append(f"{o['kind']}/{o['metadata']['name']}: {'.'.join(map(str, e.path))}: {e.message}")
    assert not errors, "\n".join(errors)


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_keda_formulas_name_triggers(overlay):
    """What KEDA's admission webhook checks beyond the schema: a formula
    needs a target, and may only name triggers that exist."""
    for so in find(rendered(overlay), "ScaledObject"):
        mods = so["spec"].get("advanced", {}).get("scalingModifiers")
        if not mods:
            continue
        assert float(mods["target"]) > 0
        names = {t.get("name") for t in so["spec"]["triggers"]}
        used = set(re.findall(r"[A-Za-z_]\w*", mods["formula"])) - {"float", "min", "max", "abs", "ceil", "floor"}
        assert used <= names, f"{so['metadata']['name']}: formula names {used - names}, not triggers"
