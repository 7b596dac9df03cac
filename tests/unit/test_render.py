"""Rendered XML and sbatch scripts with hostile values: valid XML, valid bash, exact argv."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET

from ham import render

HOSTILE = ["a b", "it's", 'say "hi"', "$(touch /tmp/pwned)", "`id`", "a;b&&c|d", "<x>&amp;",
           "new\nline", "back\\slash", "*", "~", "", "--", "-D", "${HOME}", "!x", "tab\tsep"]


def test_xml_escapes_every_value():
    props = {f"k{i}": v for i, v in enumerate(HOSTILE)} | {"name<&>'\"": "v"}
    root = ET.fromstring(render.hadoop_xml(props))
    parsed = {p.find("name").text: (p.find("value").text or "") for p in root.iter("property")}
    assert parsed == {k: v for k, v in props.items()}


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
