"""Type stubs of the nodecast facade (checked against the installed package by mypy.stubtest)."""

import datetime
import os
from typing import Any, Mapping, Optional, Sequence, Union

from nodecast._errors import InputError as InputError
from nodecast._errors import ValidationError as ValidationError
from nodecast._results import AnswerWarning as AnswerWarning
from nodecast._results import CatalogResult as CatalogResult
from nodecast._results import Decision as Decision
from nodecast._results import ExistingNode as ExistingNode
from nodecast._results import Explanation as Explanation
from nodecast._results import FrozenMap as FrozenMap
from nodecast._results import InstanceTypeRow as InstanceTypeRow
from nodecast._results import Limit as Limit
from nodecast._results import NodeClaim as NodeClaim
from nodecast._results import NodeExplanation as NodeExplanation
from nodecast._results import NodePoolUsage as NodePoolUsage
from nodecast._results import NodeVerdict as NodeVerdict
from nodecast._results import Plan as Plan
from nodecast._results import PodExplanation as PodExplanation
from nodecast._results import PoolBudget as PoolBudget
from nodecast._results import Reason as Reason
from nodecast._results import Replacement as Replacement
from nodecast._results import Skipped as Skipped
from nodecast._results import TypeExplanation as TypeExplanation
from nodecast._results import UnschedulablePod as UnschedulablePod
from nodecast._results import ValidationReport as ValidationReport
from nodecast._results import Verdict as Verdict

__version__: str
__all__ = [
    "__version__",
    "plan",
    "consolidate",
    "validate",
    "explain",
    "catalog",
    "request_json",
    "InputError",
    "ValidationError",
    "Plan",
    "NodeClaim",
    "ExistingNode",
    "UnschedulablePod",
    "Reason",
    "NodePoolUsage",
    "Limit",
    "Skipped",
    "AnswerWarning",
    "Decision",
    "Replacement",
    "NodeVerdict",
    "PoolBudget",
    "Explanation",
    "PodExplanation",
    "NodeExplanation",
    "TypeExplanation",
    "Verdict",
    "ValidationReport",
    "CatalogResult",
    "InstanceTypeRow",
    "FrozenMap",
]

# A source: YAML/JSON text, a file path (str or os.PathLike), bytes, a Kubernetes object (dict,
# also a kubernetes client to_dict()), a kubernetes client model, or an iterable of those.
Source = Any
CatalogSpec = Union[str, os.PathLike[str], Mapping[str, Any]]
Zones = Union[str, Sequence[str]]
Now = Union[datetime.datetime, str]

def request_json(
    *sources: Source,
    catalog: Optional[CatalogSpec] = None,
    zones: Optional[Zones] = None,
    spot_price_factor: Optional[float] = None,
    min_values_policy: Optional[str] = None,
    preference_policy: Optional[str] = None,
    spot_to_spot_consolidation: Optional[bool] = None,
    max_instance_types: Optional[int] = None,
    now: Optional[Now] = None,
    pod: Optional[str] = None,
    node: Optional[str] = None,
    instance_type: Optional[str] = None,
) -> str: ...
def plan(
    *sources: Source,
    catalog: Optional[CatalogSpec] = None,
    zones: Optional[Zones] = None,
    spot_price_factor: Optional[float] = None,
    min_values_policy: Optional[str] = None,
    preference_policy: Optional[str] = None,
    spot_to_spot_consolidation: Optional[bool] = None,
    max_instance_types: Optional[int] = None,
) -> Plan: ...
def consolidate(
    *sources: Source,
    now: Now,
    catalog: Optional[CatalogSpec] = None,
    zones: Optional[Zones] = None,
    spot_price_factor: Optional[float] = None,
    min_values_policy: Optional[str] = None,
    preference_policy: Optional[str] = None,
    spot_to_spot_consolidation: Optional[bool] = None,
    max_instance_types: Optional[int] = None,
) -> Decision: ...
def validate(
    *sources: Source,
    catalog: Optional[CatalogSpec] = None,
    zones: Optional[Zones] = None,
    spot_price_factor: Optional[float] = None,
    min_values_policy: Optional[str] = None,
    preference_policy: Optional[str] = None,
    spot_to_spot_consolidation: Optional[bool] = None,
    max_instance_types: Optional[int] = None,
) -> ValidationReport: ...
def explain(
    *sources: Source,
    pod: Optional[str] = None,
    node: Optional[str] = None,
    now: Optional[Now] = None,
    instance_type: Optional[str] = None,
    catalog: Optional[CatalogSpec] = None,
    zones: Optional[Zones] = None,
    spot_price_factor: Optional[float] = None,
    min_values_policy: Optional[str] = None,
    preference_policy: Optional[str] = None,
    spot_to_spot_consolidation: Optional[bool] = None,
    max_instance_types: Optional[int] = None,
) -> Explanation: ...
def catalog(
    gpu: bool = False,
    requirements: Union[str, Sequence[str]] = (),
    limit: int = 0,
    *,
    catalog: Optional[CatalogSpec] = None,
    zones: Optional[Zones] = None,
    spot_price_factor: Optional[float] = None,
) -> CatalogResult: ...
