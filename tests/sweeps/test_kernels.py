"""privnb.sweeps._kernels: the set-up of the processes a sweep owns."""

import subprocess
import sys

SKIPPED_THEN_IMPORTED = """
import sys
from privnb.sweeps import skip_iri_parser
skip_iri_parser()
import nbformat
nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])
nbformat.validate(nb)  # the notebook schema still validates
try:
    nbformat.validate({"nbformat": 4})
except nbformat.ValidationError:
    pass
else:
    raise SystemExit("an invalid notebook passed")
print(sys.modules["rfc3987_syntax"] is None)
"""

IMPORTED_THEN_SKIPPED = """
import sys
import jsonschema._format
before = sys.modules.get("rfc3987_syntax", "absent")
from privnb.sweeps import skip_iri_parser
skip_iri_parser()
print(sys.modules.get("rfc3987_syntax", "absent") is before)
"""


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_skip_iri_parser_keeps_notebook_validation_and_leaves_a_loaded_jsonschema_alone():
    assert _run(SKIPPED_THEN_IMPORTED) == "True"  # the grammar was never built, validation works
    assert _run(IMPORTED_THEN_SKIPPED) == "True"  # too late to skip: nothing changed
