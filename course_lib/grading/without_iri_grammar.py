"""Imported by the grader's processes (its command line, the fork server, a fresh pytest
process per submission) before anything imports nbformat.

nbformat imports jsonschema, which builds the grammar of its IRI format checker at import
(see ``course_lib.schema_library``), for a check the grader never makes: here the grammar's
package stays hidden for the process's life. Kernels, learners' and grading ones alike, import
jsonschema through ``schema_library``, which hides it only during the import.
"""

from course_lib.schema_library import hide_grammar_for_good

hide_grammar_for_good()
