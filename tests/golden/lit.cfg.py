# lit configuration for xtc's golden tests (tests/golden/**/*.{xt,ir,test,ll}): RUN lines with
# FileCheck patterns. Substitutions: %xtc, FileCheck, not, spirv-val, spirv-dis, ocloc (and lit's %t, %s).
# Normally loaded through the build tree's lit.site.cfg.py (ctest "golden"); when lit is pointed at this
# source folder directly it loads the site file of the build tree given by `--param build=DIR`
# (default: <repo>/build).
import os
import re

import lit.formats

if not hasattr(config, "xtc_binary"):
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(os.path.dirname(here))
    build = lit_config.params.get("build", os.path.join(repo, "build"))
    site = os.path.join(os.path.abspath(build), "tests", "golden", "lit.site.cfg.py")
    if not os.path.exists(site):
        lit_config.fatal("no %s: build xtc first (scripts/build) or pass --param build=DIR" % site)
    config.xtc_loading_site = True
    lit_config.load_config(config, site)

config.name = "xtc-golden"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".xt", ".ir", ".test", ".ll"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "lit.site.cfg.py.in", "Inputs"]
config.test_source_root = os.path.join(config.xtc_src_root, "tests", "golden")
config.test_exec_root = os.path.join(config.xtc_obj_root, "tests", "golden")

# The environment of every test: the CPU OpenCL runtime, LLVM's tools on PATH, no colours.
config.environment["OCL_ICD_VENDORS"] = config.ocl_icd_vendors
config.environment["PATH"] = os.pathsep.join(
    [os.path.dirname(config.filecheck), os.path.dirname(config.xtc_binary), config.environment.get("PATH", os.environ.get("PATH", ""))])
config.environment.pop("TERM", None)


def tool(name, path):
    # Replace `name` only as a whole word at a command position, not inside paths or other words
    # (e.g. "not" must not match in "not-implemented.test").
    if not path or path.endswith("-NOTFOUND"):
        path = "echo 'golden tests: %s not found, run scripts/setup' >&2; false" % name
    config.substitutions.append((r"(?<![\w./-])" + re.escape(name) + r"(?![\w./-])", path))


config.substitutions.append(("%xtc", config.xtc_binary))
tool("FileCheck", config.filecheck)
tool("not", config.not_tool)
tool("spirv-val", config.spirv_val)
tool("spirv-dis", config.spirv_dis)
tool("ocloc", config.ocloc)
