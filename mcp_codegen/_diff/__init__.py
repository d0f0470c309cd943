"""The schema diff's inside: reading two revisions, classifying each change, rules, reports.

``mcp_codegen.diff`` is its public face; ``mcp-codegen diff`` (``mcp_codegen._cli``) drives it.

Runs in: parent. (The default for every module of this package.)
"""
