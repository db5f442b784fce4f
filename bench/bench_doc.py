"""Rewrites one marked section of docs/BENCHMARKS.md; shared by the side-by-side scripts.

A section is the text between `<!-- NAME:begin -->` and `<!-- NAME:end -->`. A doc without the
markers gets the section appended under `heading`.
"""
import os

DEFAULT_DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "BENCHMARKS.md")


def replace_section(text, name, body, heading):
    begin, end = "<!-- {}:begin -->".format(name), "<!-- {}:end -->".format(name)
    block = "{}\n{}\n{}".format(begin, body.strip(), end)
    if begin in text and end in text:
        return text[:text.index(begin)] + block + text[text.index(end) + len(end):]
    return text.rstrip() + "\n\n{}\n\n{}\n".format(heading, block)


def write_section(doc, name, body, heading):
    text = open(doc).read() if os.path.exists(doc) else "# Benchmarks\n"
    text = replace_section(text, name, body, heading)
    with open(doc, "w") as f:
        f.write(text if text.endswith("\n") else text + "\n")
