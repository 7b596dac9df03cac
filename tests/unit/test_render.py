"""Rendered XML and sbatch scripts with hostile values: valid XML, valid bash, exact argv."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from ham import render
from ham.cli import main as cli_main
from ham.errors import UsageError

HOSTILE = ["a b", "it's", 'say "hi"', "$(touch /tmp/pwned)", "`id`", "a;b&&c|d", "<x>&amp;",
           "new\nline", "back\\slash", "*", "~", "", "--", "-D", "${HOME}", "!x", "tab\tsep"]


def test_xml_escapes_every_value():
    props = {f"k{i}": v for i, v in enumerate(HOSTILE)} | {"name<&>'\"": "v"}
    root = ET.fromstring(render.hadoop_xml(props))
    parsed = {p.find("name").text: (p.find("value").text or "") for p in root.iter("property")}
    assert parsed == {k: v for k, v in props.items()}


# Values a parser is tempted to change: carriage returns (normalised to \n unless escaped),
# white space at the ends, markup, a CDATA end, characters outside the BMP, the last ones XML allows.
NASTY = ["cr\rin", "crlf\r\nin", "\r", "\r\n", "\n\r", " lead", "trail ", "\t\n \t", "]]>",
         "<![CDATA[x]]>", "&#13;", "&lt;", "<?pi?>", "<!-- c -->", "\U0001F600 \U0010FFFF",
         "\ufffd\ud7ff\ue000", "\x7f\x85\u2028", "é ß 中"]


def parse(xml: str) -> dict[str, str]:
    root = ET.fromstring(xml.encode())
    return {p.find("name").text: (p.find("value").text or "") for p in root.iter("property")}


def test_xml_gives_back_every_nasty_value_exactly():
    props = {f"k{i}": v for i, v in enumerate(NASTY)} | {"name\r\x7f]]>": "v"}
    assert parse(render.hadoop_xml(props)) == props


def test_xml_sweep_of_every_character():
    """Every character XML 1.0 can carry comes back exactly, in one value; every other one is
    refused naming the key, the character and what to do, never written as a broken file."""
    carried, refused = [], []
    for code in range(0x110000):
        ch = chr(code)
        (refused if render.NOT_XML.match(ch) else carried).append(ch)
    assert parse(render.hadoop_xml({"all": "".join(carried)})) == {"all": "".join(carried)}
    assert len(refused) == 29 + 2048 + 2  # C0 controls but \t \n \r, surrogates, U+FFFE/FFFF
    for ch in refused:
        with pytest.raises(UsageError) as err:
            render.hadoop_xml({"my.key": f"ab{ch}"})
        assert f"'my.key' has character U+{ord(ch):04X} at position 2" in str(err.value)
        assert "\n" not in str(err.value) and "remove it" in str(err.value)
    with pytest.raises(UsageError, match="the name of Hadoop property"):
        render.hadoop_xml({"bad\x01name": "v"})


def test_a_setting_xml_cannot_hold_is_refused_before_anything_is_submitted(capsys, monkeypatch):
    monkeypatch.setenv("HAM_RUNNER_JAVA_OPTS", "-Xmx1g\x01")
    with pytest.raises(SystemExit) as exited:
        cli_main.main(["submit", "--dry-run", "--", "true"])
    err = capsys.readouterr().err
    assert exited.value.code == 2 and err.count("\n") == 1, err
    assert "HAM_RUNNER_JAVA_OPTS" in err and "U+0001" in err and "remove it" in err


def test_sbatch_script_passes_argv_unchanged(tmp_path):
    printer = [sys.executable, "-c", "import json,sys; print(json.dumps(sys.argv[1:]))"]
    script = render.render("sbatch.sh.j2", sbatch_options=["--job-name=it's a $(job)", "--nodes=2"],
                           environment={"HAM_SHARED_ROOT": "/x y/$z"},
                           ham_run=[*printer, "--", *HOSTILE])
    path = tmp_path / "job.sh"
    path.write_text(script)
    assert subprocess.run(["bash", "-n", str(path)]).returncode == 0
    out = subprocess.run(["bash", str(path)], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == ["--", *HOSTILE]
    assert not (tmp_path / "pwned").exists()
    assert "#SBATCH '--job-name=it'\"'\"'s a $(job)'" in script


def test_sbatch_script_exports_settings(tmp_path):
    script = render.render("sbatch.sh.j2", sbatch_options=[], environment={"HAM_SHARED_ROOT": "/x y"},
                           ham_run=["ham", "run", "--", "true"])
    assert "export HAM_SHARED_ROOT='/x y'" in script


def test_shell_exports_round_trip_sh_and_csh(tmp_path):
    from ham import shellenv

    values = {"HAM_JOB_DIR": "/x y/it's $(id) `id` !x", "PATH": "/a b:/usr/bin:/bin"}
    sh = shellenv.exports(values, "sh")
    out = subprocess.run(["sh", "-c", sh + 'printf "%s|%s" "$HAM_JOB_DIR" "$PATH"'],
                         capture_output=True, text=True, check=True).stdout
    assert out == f"{values['HAM_JOB_DIR']}|{values['PATH']}"
    csh = shellenv.exports(values, "csh")  # tcsh comes from docker/install.sh
    out = subprocess.run(["tcsh", "-f", "-c", csh + 'printf "%s|%s" "$HAM_JOB_DIR" "$PATH"'],
                         capture_output=True, text=True).stdout
    assert out == f"{values['HAM_JOB_DIR']}|{values['PATH']}"


def test_log4j_properties_load_the_driver_log_path_unchanged(tmp_path):
    """Java's Properties.load (how log4j reads the file) gives back every hostile path."""
    for i, value in enumerate(v for v in HOSTILE if v):
        text = render.render("log4j.properties.j2", level="INFO", driver_log=f" /x/{value}",
                             driver_appender="org.apache.log4j.FileAppender",
                             driver_loggers=["io.github.ham.mapreduce"])
        (tmp_path / f"{i}.properties").write_text(text)
    (tmp_path / "Load.java").write_text(
        "import java.io.*; import java.util.*;\n"
        "public class Load { public static void main(String[] a) throws Exception {\n"
        "  for (String f : a) { Properties p = new Properties();\n"
        "    try (Reader r = new FileReader(f)) { p.load(r); }\n"
        "    System.out.print(p.getProperty(\"log4j.appender.driver.File\") + \"\\0\"); } } }\n")
    files = [str(tmp_path / f"{i}.properties") for i in range(len([v for v in HOSTILE if v]))]
    out = subprocess.run(["java", str(tmp_path / "Load.java"), *files], capture_output=True,
                         text=True, check=True).stdout
    assert out.split("\0")[:-1] == [f" /x/{v}" for v in HOSTILE if v]
