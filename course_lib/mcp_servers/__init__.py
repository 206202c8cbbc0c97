"""MCP servers shipped with the course, and how they run (lesson 08).

- ``notes``: a small notebook of notes (English and Chinese) over MCP, for the agent loop of
  lesson 08: ``python -m course_lib.mcp_servers.notes [--http --port N]``.
- ``course_tools``: lesson 04's tools in the reference registry, which
  ``python -m course_lib serve-mcp`` serves (``cli``).
- ``serving``: stdio and Streamable HTTP for any low-level ``Server``.
- ``connect``: a ready ``ClientSession`` on a server, in memory, over stdio or over HTTP.
"""
