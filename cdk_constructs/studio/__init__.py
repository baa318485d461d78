"""Studio layer (<Env>-Studio): the SageMaker Studio domain, user profiles, lifecycle configurations."""

from __future__ import annotations

from cdk_constructs.studio.studio_domain import StudioDomain
from cdk_constructs.studio.studio_lifecycle_configs import StudioLifecycleConfigs
from cdk_constructs.studio.studio_user_profile import StudioUserProfile

__all__ = ["StudioDomain", "StudioLifecycleConfigs", "StudioUserProfile"]
