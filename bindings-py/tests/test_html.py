"""Every answer has a notebook view (``_repr_html_``): Explanation, ValidationReport and
CatalogResult too, with the same rules as Plan/Decision/Simulation (inline styles only, no
script, every text escaped)."""

from __future__ import annotations

import re

import nodecast
from helpers import TRAINING


def _safe(html: str) -> None:
    low = html.lower()
    assert "<script" not in low and "<style" not in low and "javascript:" not in low
    assert html.startswith("<div") and html.endswith("</div>")
    assert html.count("<table") == html.count("</table>")


def test_every_answer_class_has_an_html_view() -> None:
    from nodecast._results import Answer

    classes = [c for c in vars(nodecast).values() if isinstance(c, type) and issubclass(c, Answer) and c is not Answer]
    assert {"Plan", "Decision", "Explanation", "ValidationReport", "CatalogResult", "Simulation"} <= {c.__name__ for c in classes}
    for c in classes:
        assert "_repr_html_" in dir(c), c.__name__


def test_explanation_html_lists_every_verdict() -> None:
    e = nodecast.explain(*TRAINING, pod="ml/train-llm-0", instance_type="p4d.24xlarge")
    html = e._repr_html_()
    _safe(html)
    assert e.pod is not None and e.instance_type is not None
    assert "ml/train-llm-0" in html and "gpu-training-1" in html and "$5.672/h" in html
    for v in e.pod.node_pools:
        assert f">{v.name}</td>" in html
    assert html.count("✓") == sum(v.ok for v in e.pod.node_pools + e.pod.existing_nodes)
    assert f"Instance type p4d.24xlarge: {e.instance_type.verdict}" in html


def test_validation_and_catalog_html() -> None:
    v = nodecast.validate(*TRAINING)
    html = v._repr_html_()
    _safe(html)
    assert f"{v.objects} objects" in html and all(p in html for p in v.node_pools)

    c = nodecast.catalog(gpu=True, requirements=["karpenter.k8s.aws/instance-gpu-name In h100,a100"])
    html = c._repr_html_()
    _safe(html)
    rows = re.findall(r"<tr><td", html)
    assert len(rows) == min(len(c.instance_types), 50)
    assert "p4d.24xlarge" in html and "8 × a100" in html and "1152 GiB" in html
    everything = nodecast.catalog()
    big = everything._repr_html_()
    assert len(re.findall(r"<tr><td", big)) == 50 and f"and {everything.count - 50} more instance types" in big


def test_html_escapes_every_text() -> None:
    # Built from an answer whose strings are hostile (a custom catalog can name anything).
    from nodecast._results import CatalogResult, ValidationReport

    row = {"name": "<img src=x>", "vcpu": "2", "memory": "4Gi", "arch": "amd64&", "allocatableCpu": "1", "allocatableMemory": "3Gi",
           "onDemandPricePerHour": 0.1, "gpuName": "<b>l4</b>", "gpuCount": "1"}
    c = CatalogResult._from("{}", {"source": "<src>", "count": 1, "instanceTypes": [row]})
    html = c._repr_html_()
    _safe(html)
    assert "<img" not in html and "&lt;img src=x&gt;" in html and "&lt;b&gt;l4&lt;/b&gt;" in html and "amd64&amp;" in html
    v = ValidationReport._from("{}", {"objects": 1, "pods": 0, "nodePools": ["<p>"],
                                      "skipped": [{"document": 0, "kind": "ConfigMap", "name": "<cm>", "reason": "a & b"}]})
    html = v._repr_html_()
    _safe(html)
    assert "<p>" not in html and "&lt;cm&gt;" in html and "a &amp; b" in html and "Skipped (1)" in html


def test_every_result_has_the_same_shape() -> None:
    # Data of the answer are attributes; conversions and renderings are methods with one name on
    # every result: to_json(), to_dict(), to_pandas(), summary_line() (== str()), _repr_html_().
    results = [
        nodecast.plan(*TRAINING),
        nodecast.explain(*TRAINING, pod="ml/train-llm-0"),
        nodecast.validate(*TRAINING),
        nodecast.catalog(gpu=True, limit=3),
    ]
    for r in results:
        line = r.summary_line()
        assert line == str(r) and "\n" not in line and line
        assert r.to_dict() == __import__("json").loads(r.to_json())
        assert callable(r._repr_html_) and r._repr_html_().startswith("<div")
        assert repr(r) == f"<nodecast.{type(r).__name__}: {line}>"
