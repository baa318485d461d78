"""Cross-cutting rules every layer uses: compliance suppressions, cdk-nag acknowledgements, IAM trust conditions, Lambda
log groups, log retention."""

from __future__ import annotations

from cdk_constructs.governance.trust_conditions import ServiceTrustConditions

__all__ = ["ServiceTrustConditions"]
