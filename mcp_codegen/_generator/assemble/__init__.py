"""Stage 3: final MCP tool definitions from raw schemas, and the checks on them.

Runs in: worker, parent. (Workers assemble what they inspect; the generator assembles inspections
taken from the build cache; see ``mcp_codegen._generator.render.module_output``.)
"""
