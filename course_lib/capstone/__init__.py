"""Lesson 09's world: a small tea shop, its tools, the tables its policies read, and the
scenarios the notebook shows.

- ``shop``: the shop's data (English and Chinese) and operations, and ``shop_tools(shop)``, the
  operations as typed, documented functions ready to register;
- ``policies``: the categories and their keywords, the roles and their permissions, the tags of
  each tool;
- ``scenarios``: the conversations the notebook runs against an assistant, in the open.
"""
