"""Imported by the grader's processes (its command line, the fork server, a fresh pytest
process per submission) before anything imports nbformat.

nbformat imports jsonschema, which builds the grammar of its IRI format checker
(``rfc3987_syntax``) at import when that package is installed (JupyterLab's dependencies
install it): about 0.7 s a process, for a check neither the grader nor the self-check ever
makes. Learners' kernels are not affected.
"""

import sys

sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]
