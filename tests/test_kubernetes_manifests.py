"""Every Kubernetes manifest in docs/ (the DaemonSets, the Jobs, the multi-worker Service, the Pod
with an init container) is valid for the newest Kubernetes minor version kubernetes-validate
bundles and the two before it, checked strictly (an unknown or misspelled field is an error)
against Kubernetes' own schemas.

A YAML block in the docs is a manifest when it has `apiVersion` and `kind`; the others must be one
of the known non-manifests (Prometheus rules, the node-exporter chart's values) so that a manifest
written without them is not silently left out.
"""

from __future__ import annotations

import re

import pytest
from conftest import ROOT

kubernetes_validate = pytest.importorskip(
    "kubernetes_validate", reason="kubernetes-validate is not installed (pip install -e '.[test]')")
import yaml  # noqa: E402 - PyYAML comes with kubernetes-validate
from kubernetes_validate.utils import all_versions, major_minor  # noqa: E402

DOCS = sorted((ROOT / "docs").glob("*.md"))
NOT_MANIFESTS = ("groups:", "# values for the prometheus-node-exporter chart")


def _blocks() -> list[tuple[str, int, str]]:
    """(doc name, block number, text) of every ```yaml block in docs/."""
    return [(doc.name, i, text) for doc in DOCS
            for i, text in enumerate(re.findall(r"```yaml\n(.*?)```", doc.read_text(), re.S))]


def _manifests() -> list[tuple[str, dict]]:
    found = []
    for name, i, text in _blocks():
        if text.startswith(NOT_MANIFESTS):
            continue
        for doc in yaml.safe_load_all(text):
            assert isinstance(doc, dict) and "apiVersion" in doc and "kind" in doc, (
                f"{name} yaml block {i} is neither a manifest nor a known non-manifest")
            found.append((f"{name}: {doc['kind']} {doc['metadata']['name']}", doc))
    return found


def _versions() -> list[str]:
    """The newest bundled minor version and the two before it (e.g. 1.37, 1.36, 1.35)."""
    minors = sorted({major_minor(v) for v in all_versions()}, key=lambda v: tuple(map(int, v.split("."))))
    return minors[-3:]


def test_the_docs_hold_the_manifests_users_copy() -> None:
    kinds = sorted(doc["kind"] for _, doc in _manifests())
    assert kinds == ["DaemonSet", "DaemonSet", "Job", "Job", "Pod", "Service"], kinds
    assert len(_versions()) == 3


@pytest.mark.parametrize("version", _versions())
@pytest.mark.parametrize("label, manifest", _manifests(), ids=lambda v: v if isinstance(v, str) else "")
def test_manifest_is_valid_for_kubernetes(label: str, manifest: dict, version: str) -> None:
    kubernetes_validate.validate(manifest, version, strict=True)  # raises ValidationError naming the field


def test_the_validator_catches_a_misspelled_field() -> None:
    """The check above can fail: a typo in a field name or a wrong type is an error."""
    _, daemonset = next(m for m in _manifests() if m[1]["kind"] == "DaemonSet")
    typo = yaml.safe_load(yaml.safe_dump(daemonset))
    typo["spec"]["template"]["spec"]["tolerations"][0]["efect"] = "NoSchedule"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(typo, _versions()[-1], strict=True)
    wrong = yaml.safe_load(yaml.safe_dump(daemonset))
    wrong["spec"]["template"]["spec"]["containers"][0]["resources"] = {"limits": [8]}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(wrong, _versions()[-1], strict=True)
