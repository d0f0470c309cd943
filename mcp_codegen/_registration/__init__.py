"""How servers register tools that live inside functions and factories: the recording stand-ins and
factory calls, shared by the build (the worker) and serving (``mcp_codegen.runtime``).

Runs in: worker, server. (The default for every module of this package.)
"""
