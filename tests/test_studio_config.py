"""`studio` configuration: every bad input fails in the config layer with a message naming field, value and fix."""

from __future__ import annotations

import re

import pytest

from config import ConfigError
from config.studio import DEFAULT_PARTITION_IMAGE, StudioConfig

from .conftest import ENVIRONMENTS, config_fails, config_with


def users(*entries: dict) -> dict:
    return {"studio": {"user_profiles": list(entries)}}


def test_shipped_environments_cover_both_fsx_modes() -> None:
    assert config_with("dev").studio.fsx_mode == "shared"
    assert config_with("prod").studio.fsx_mode == "per-user"


def test_defaults() -> None:
    s = StudioConfig()
    assert (s.posix_uid, s.posix_gid, s.fsx_mode, s.user_profiles) == (200001, 1001, "shared", ())
    assert s.partition_job_image == DEFAULT_PARTITION_IMAGE


@pytest.mark.parametrize("name", ["-leading", "trailing-", "under_score", "dot.ted", "x" * 64, "", "spa ce", "ünï"])
def test_invalid_profile_name(name: str) -> None:
    with pytest.raises(
        ConfigError,
        match=r"studio\.user_profiles\[\]\.name .* does not match SageMaker's user "
        r"profile pattern",
    ):
        config_with("dev", users({"name": name, "team": "ml-research"}))


@pytest.mark.parametrize("name", ["a", "Jane-Doe", "a--b", "x" * 63, "007"])
def test_valid_profile_names(name: str) -> None:
    config_with("dev", users({"name": name, "team": "ml-research"}))


@pytest.mark.parametrize("sign_in", ["*", "jane*", "ja?ne", "a", "x" * 65, "jane doe", "jane:doe"])
def test_sign_in_names_are_session_names_without_wildcards(sign_in: str) -> None:
    """The presigned-URL policy matches `*:<sign_in_name>` with StringLike: a wildcard would open other people's
    profiles, and a value STS cannot give a session would open none."""
    team = config_with("dev").kubernetes.teams[0].name
    with pytest.raises(ConfigError, match=r"studio\.user_profiles\[\]\.sign_in_name .* is not a role session name"):
        config_with("dev", users({"name": "jane", "team": team, "sign_in_name": sign_in}))


def test_sign_in_name_defaults_to_the_profile_name() -> None:
    team = config_with("dev").kubernetes.teams[0].name
    (plain, named) = config_with(
        "dev",
        users(
            {"name": "jane", "team": team, "posix_uid": 200101},
            {"name": "joe", "team": team, "sign_in_name": "joe.doe@example.com", "posix_uid": 200102},
        ),
    ).studio.user_profiles
    assert (plain.session_name, named.session_name) == ("jane", "joe.doe@example.com")


def test_duplicate_profile_name() -> None:
    with pytest.raises(
        ConfigError,
        match=r"studio\.user_profiles lists 'jane' twice; give each user profile a "
        r"unique name",
    ):
        config_with(
            "dev", users({"name": "jane", "team": "ml-research"}, {"name": "jane", "team": "hyperpod-platform"})
        )


def test_profile_names_differing_only_in_case_are_duplicates() -> None:
    with pytest.raises(ConfigError, match=r"'Jane' twice \('jane' and 'Jane' differ only in case\)"):
        config_with("dev", users({"name": "jane", "team": "ml-research"}, {"name": "Jane", "team": "ml-research"}))


def test_unknown_fsx_mode() -> None:
    with pytest.raises(
        ConfigError,
        match=r"studio\.fsx_mode 'per_user' is not a mode; use 'shared' .* or "
        r"'per-user'",
    ):
        config_with("dev", {"studio": {"fsx_mode": "per_user"}})


@pytest.mark.parametrize(
    ("field", "message"),
    [
        ("posix_uid", r"studio\.posix_uid 0 is root"),
        ("posix_gid", r"studio\.posix_gid 0 is the root group"),
    ],
)
def test_uid_or_gid_zero(field: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        config_with("dev", {"studio": {field: 0}})


def test_user_uid_zero() -> None:
    with pytest.raises(ConfigError, match=r"studio\.user_profiles\[\]\.posix_uid 0 is root"):
        config_with("dev", users({"name": "jane", "team": "ml-research", "posix_uid": 0}))


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("posix_uid", 999, r"studio\.posix_uid 999 is outside SageMaker's POSIX uid range 10000-4000000"),
        ("posix_gid", 100, r"studio\.posix_gid 100 is outside SageMaker's POSIX gid range 1001-4000000"),
        ("idle_timeout_minutes", 30, r"studio\.idle_timeout_minutes 30 is outside 60-525600"),
    ],
)
def test_out_of_range(field: str, value: int, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        config_with("dev", {"studio": {field: value}})


def test_duplicated_uid_between_users() -> None:
    with pytest.raises(
        ConfigError,
        match=r"studio\.user_profiles\[bob\]\.posix_uid 300001 is already the uid of "
        r"'alice'",
    ):
        config_with(
            "prod",
            users(
                {"name": "alice", "team": "ml-research", "posix_uid": 300001},
                {"name": "bob", "team": "ml-research", "posix_uid": 300001},
            ),
        )


def test_user_uid_duplicating_the_default() -> None:
    with pytest.raises(ConfigError, match=r"posix_uid 200001 duplicates the default studio\.posix_uid"):
        config_with("prod", users({"name": "alice", "team": "ml-research", "posix_uid": 200001}))


def test_team_that_does_not_exist() -> None:
    with pytest.raises(
        ConfigError,
        match=r"studio\.user_profiles\[jane\]\.team 'nlp' is not a team in "
        rf"kubernetes\.teams \({re.escape(', '.join(t.name for t in config_with('dev').kubernetes.teams))}\)",
    ):
        config_with("dev", users({"name": "jane", "team": "nlp"}))


def test_max_idle_below_default() -> None:
    with pytest.raises(
        ConfigError,
        match=r"studio\.max_idle_timeout_minutes 60 is below "
        r"studio\.idle_timeout_minutes 120",
    ):
        config_with("dev", {"studio": {"idle_timeout_minutes": 120, "max_idle_timeout_minutes": 60}})


def test_unknown_instance_type() -> None:
    with pytest.raises(
        ConfigError,
        match=r"studio\.default_instance_type 'ml\.t3\.huge' is not a SageMaker Studio "
        r"instance type.*same family: ml\.t3\.",
    ):
        config_with("dev", {"studio": {"default_instance_type": "ml.t3.huge"}})


def test_unpinned_partition_image() -> None:
    with pytest.raises(ConfigError, match=r"studio\.partition_job_image 'busybox:latest' must be pinned by digest"):
        config_with("dev", {"studio": {"partition_job_image": "busybox:latest"}})


@pytest.mark.parametrize("mode", ["shared", "per-user"])
def test_uids_are_unique_across_the_domain(mode: str) -> None:
    """Issue 21: both prod users had Studio's default uid 200001 (only checked within a team in per-user mode)."""
    message = config_fails(
        {
            "studio": {
                "fsx_mode": mode,
                "user_profiles": [
                    {"name": "alice", "team": "ml-research"},
                    {"name": "bob", "team": "hyperpod-platform"},
                ],
            }
        },
        r"studio\.user_profiles\[bob\] has uid 200001 \(the default studio\.posix_uid\), which is already the uid "
        r"of 'alice'",
        r"unique across every profile of the Studio domain",
        r"Give studio\.user_profiles\[bob\] a posix_uid of its own, e\.g\. posix_uid: 200002",
        env="prod",
    )
    assert "Traceback" not in message
    config_with(
        "prod",
        users(
            {"name": "alice", "team": "ml-research"}, {"name": "bob", "team": "hyperpod-platform", "posix_uid": 200002}
        ),
    )


def test_shipped_configs_give_every_user_a_uid_of_their_own() -> None:
    from config import load_config

    for env in ENVIRONMENTS:
        studio = load_config(env).studio
        uids = [studio.uid_of(p) for p in studio.user_profiles]
        assert len(set(uids)) == len(uids), (env, uids)


def test_team_gid_must_not_be_the_studio_default_gid() -> None:
    with pytest.raises(
        ConfigError,
        match=r"kubernetes\.teams\[ml-research\]\.posix_gid 1001 equals "
        r"studio\.posix_gid, the default group of every Studio app",
    ):
        config_with(
            "dev",
            {"kubernetes": {"teams": [{"name": "ml-research", "posix_gid": 1001}, {"name": "hyperpod-platform"}]}},
        )


def test_unknown_key_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"studio\.fsx_modes: unknown key"):
        config_with("dev", {"studio": {"fsx_modes": "shared"}})


def test_team_named_like_the_partition_namespace() -> None:
    with pytest.raises(
        ConfigError,
        match=r"kubernetes\.teams names 'studio-partitions', the namespace of Studio's "
        r"partition Job; rename the team",
    ):
        config_with(
            "dev",
            {
                "kubernetes": {
                    "teams": [{"name": "ml-research"}, {"name": "hyperpod-platform"}, {"name": "studio-partitions"}]
                }
            },
        )
