from __future__ import annotations

import re
from pathlib import Path

import pytest

from ham import settings
from ham.errors import SettingsError


def env_for(tmp_path: Path, site: str | None = None, user: str | None = None, **extra: str):
    env = {"HAM_SITE_CONFIG": str(tmp_path / "site.toml"),
           "HAM_USER_CONFIG": str(tmp_path / "user.toml"), **extra}
    if site is not None:
        (tmp_path / "site.toml").write_text(site)
    if user is not None:
        (tmp_path / "user.toml").write_text(user)
    return env


def test_defaults_when_no_files(tmp_path):
    s = settings.load(env_for(tmp_path))
    assert s["retention"] == "logs"
    assert s.source("retention") == "default"
    assert set(s) == {x.key for x in settings.SCHEMA}


def test_a_settings_file_named_on_purpose_but_missing_is_said(tmp_path, caplog):
    """HAM_SITE_CONFIG or HAM_USER_CONFIG naming no file is a WARNING naming the variable (a
    modulefile's typo would otherwise leave the site's settings unapplied without a word); the
    default files' absence is not, and an existing file is read as before."""
    with caplog.at_level("WARNING", logger="ham.settings"):
        settings.load(env_for(tmp_path, user='qos = "u"\n'))
    assert [r.getMessage() for r in caplog.records] == [
        f"HAM_SITE_CONFIG={tmp_path / 'site.toml'} names no file: its settings are not read "
        "(fix the path, or unset HAM_SITE_CONFIG)"]
    caplog.clear()
    with caplog.at_level("WARNING", logger="ham.settings"):
        settings.load({"HOME": str(tmp_path)})  # the default files, both absent here
    assert not [r for r in caplog.records if "names no file" in r.getMessage()]


def test_precedence_site_user_env_flag(tmp_path):
    env = env_for(tmp_path, site='partition = "site"\nqos = "s"\naccount = "s"\nstripe_count = 2\n',
                  user='qos = "u"\naccount = "u"\n', HAM_ACCOUNT="e", HAM_STRIPE_COUNT="4")
    s = settings.load(env, flags={"account": "flag", "partition": None})
    assert s["partition"] == "site" and s.source("partition").startswith("site file")
    assert s["qos"] == "u" and s.source("qos").startswith("user file")
    assert s["account"] == "flag" and s.source("account") == "command line"
    assert s["stripe_count"] == 4 and s.source("stripe_count") == "environment HAM_STRIPE_COUNT"


def test_unknown_key_names_key_and_file(tmp_path):
    env = env_for(tmp_path, user='shared_rot = "/x"\n')
    with pytest.raises(SettingsError) as e:
        settings.load(env)
    msg = str(e.value)
    assert "shared_rot" in msg and str(tmp_path / "user.toml") in msg and "shared_root" in msg
    assert "\n" not in msg


@pytest.mark.parametrize("text,key", [('stripe_count = "many"\n', "stripe_count"),
                                       ('retention = "forever"\n', "retention"),
                                       ('stripe_size = "4 MiB"\n', "stripe_size"),
                                       ('runners_per_node = true\n', "runners_per_node")])
def test_bad_value_names_key_and_file(tmp_path, text, key):
    with pytest.raises(SettingsError) as e:
        settings.load(env_for(tmp_path, site=text))
    assert key in str(e.value) and "site.toml" in str(e.value)


def test_bad_toml_and_tables_are_rejected(tmp_path):
    with pytest.raises(SettingsError, match="not valid TOML"):
        settings.load(env_for(tmp_path, site="partition = \n"))
    with pytest.raises(SettingsError, match="flat keys"):
        settings.load(env_for(tmp_path, site="[ham]\npartition = 'x'\n"))


def test_bad_env_value_and_unknown_env_variable(tmp_path, caplog):
    with pytest.raises(SettingsError, match="HAM_STRIPE_COUNT"):
        settings.load(env_for(tmp_path, HAM_STRIPE_COUNT="x"))
    settings.load(env_for(tmp_path, HAM_SHARED_ROT="/x"))  # other tools use HAM_* too: a warning
    assert "HAM_SHARED_ROT" in caplog.text and "HAM_SHARED_ROOT" in caplog.text


def test_paths_expand_user(tmp_path):
    s = settings.load(env_for(tmp_path, site='shared_root = "~/jobs"\n'))
    assert not s["shared_root"].startswith("~")


def test_retired_setting_is_ignored_with_a_warning(tmp_path, caplog):
    """slurm_backend did nothing once pyslurm proved impossible: site files that set it keep
    working, and say so."""
    env = env_for(tmp_path, site='slurm_backend = "cli"\n', user="", HAM_SLURM_BACKEND="auto")
    s = settings.load(env)
    assert "slurm_backend" not in s
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 2 and all("'slurm_backend' is retired" in w for w in warnings)
    assert not any("is not a HAM setting" in w for w in warnings)


def test_site_example_documents_every_setting_as_the_template_does(tmp_path):
    """examples/site-admin/ham.toml is `ham config template` filled in: each setting keeps the
    template's description (a `# Site:` comment after it says why a value was chosen), and every
    value it sets is valid. It drifted once (a description and a default changed in settings)."""
    import re

    from ham import sitedoc

    example = Path(__file__).resolve().parents[2] / "examples" / "site-admin" / "ham.toml"

    def described(text: str) -> dict[str, list[str]]:
        out, comment = {}, []
        for line in text.splitlines():
            m = re.match(r"^(?:# )?([a-z_]+) = ", line)
            if m:
                out[m.group(1)] = comment
                comment = []
            elif line.startswith("#"):
                comment.append(line)
            else:
                comment = []
        return out

    template = described(sitedoc.site_template())
    mine = described(example.read_text())
    assert list(mine) == list(template)
    for key, comment in mine.items():
        site = [i for i, line in enumerate(comment) if line.startswith("# Site:")]
        assert comment[:site[0] if site else None] == template[key], key
    s = settings.load({"HAM_SITE_CONFIG": str(example), "HAM_USER_CONFIG": str(tmp_path / "u")})
    assert s["filesystem"] == "lustre" and s["lustre_root"] and s["output_stripe"]


def test_ham_variables_of_ham_and_its_scripts_raise_no_warning(tmp_path, caplog):
    """Every HAM_* variable the launcher puts in an environment (for the `ham` it starts inside
    an allocation, for `ham env`) and every one the project's scripts read from a user's shell
    (docker/, examples/, tests/cluster-up.sh) is known: exporting it makes no `ham` command warn.
    HAM_JAVA_CHECKED, set by `ham run -N` for its inner `ham run`, once did."""
    import re

    root = Path(__file__).resolve().parents[2]
    names = set()
    for path in (root / "launcher" / "ham").rglob("*.py"):
        names |= set(re.findall(r'"(HAM_[A-Z_]+)"', path.read_text()))
    scripts = [*(root / "docker").glob("*.sh"), root / "docker" / "compose.yml",
               *(root / "examples").rglob("*.sh"), root / "tests" / "cluster-up.sh"]
    for path in scripts:
        names |= set(re.findall(r"\$\{(HAM_[A-Z_]+):[-+]", path.read_text()))
    names -= {"HAM_CONF", "HAM_NODES", "HAM_STATE", "HAM_DB_PASS"}  # the image's entrypoint's
    assert {"HAM_JAVA_CHECKED", "HAM_CLUSTER_PORT_BASE", "HAM_DEMO_DIR"} <= names
    names -= {s.env_var for s in settings.SCHEMA} | {"HAM_SITE_CONFIG", "HAM_USER_CONFIG"}
    settings.load(env_for(tmp_path, **{n: "x" for n in names}))
    assert "is not a HAM setting" not in caplog.text


@pytest.mark.parametrize("root,why", [("", "not an empty value"),
                                      ("/scratch/my jobs", "spaces, '%', ':' or non-ASCII"),
                                      ("/scratch/sh\u00e4red", "non-ASCII"),
                                      ("/scratch/a%20b", "'%'")])
def test_shared_root_hadoop_cannot_use_is_refused(tmp_path, root, why):
    """Hadoop reads map output indexes by their encoded URI (SpillRecord): under a shared root
    with a space every job failed in its shuffle, after its maps had run. Now: one line, before
    anything is made."""
    with pytest.raises(SettingsError, match=re.escape(why)):
        settings.load(env_for(tmp_path, HAM_SHARED_ROOT=root))


@pytest.mark.parametrize("value,why", [("tmp", "expected an absolute directory"),
                                       ("", "or none for the job's directory"),
                                       ("/local disk", "spaces, '%', ':' or non-ASCII"),
                                       ("/l\u00f6cal", "non-ASCII")])
def test_runner_local_dir_must_be_absolute_and_hadoop_nameable(tmp_path, value, why):
    """Every node resolves the runners' node-local directory alone: a relative one would be
    relative to wherever srun started them. 'none' is the shared file system (an empty value
    would reach Hadoop as unset, the default)."""
    with pytest.raises(SettingsError, match=re.escape(why)):
        settings.load(env_for(tmp_path, HAM_RUNNER_LOCAL_DIR=value))
    assert settings.load(env_for(tmp_path, HAM_RUNNER_LOCAL_DIR="none"))["runner_local_dir"] == \
        "none"
    assert settings.load(env_for(tmp_path))["runner_local_dir"] == "/tmp"


def test_settings_files_that_are_not_text_or_not_files(tmp_path):
    (tmp_path / "bytes.toml").write_bytes(b"\xff\xfe")
    with pytest.raises(SettingsError, match="bytes.toml: not valid TOML"):
        settings.load({"HAM_SITE_CONFIG": str(tmp_path / "bytes.toml")})
    (tmp_path / "dir.toml").mkdir()
    with pytest.raises(SettingsError, match="dir.toml: cannot read settings file"):
        settings.load({"HAM_SITE_CONFIG": str(tmp_path / "dir.toml")})


def test_values_of_the_wrong_kind(tmp_path):
    """A TOML float is no integer (1.5 runners per node became 1); a time limit in no syntax
    Slurm has fails here, not as a traceback when a script is made."""
    with pytest.raises(SettingsError, match="runners_per_node.*expected an integer"):
        settings.load(env_for(tmp_path, site="runners_per_node = 1.5\n"))
    with pytest.raises(SettingsError, match="time_limit.*not a Slurm time"):
        settings.load(env_for(tmp_path, site="", HAM_TIME_LIMIT="abc"))
    with pytest.raises(SettingsError, match="time_limit.*go up to 59"):
        settings.load(env_for(tmp_path, site='time_limit = "1:99:00"\n'))
    assert settings.load(env_for(tmp_path, site="",
                                 HAM_TIME_LIMIT="90:00"))["time_limit"] == "90:00"
