"""Read string constants out of Python sources without running them (for `memrl prompts import`).

stdin:  {"root": "<checkout>", "items": [{"locator": "path.py:Name", "format": bool}, ...]}
stdout: {"<locator>": {"segments": [{"text": ...} | {"field": "<expr>"}]} | {"error": "<why>"}}

Locators name a string by where it is bound, never by its text:
  path.py:NAME                 module-level assignment
  path.py:Class.NAME           class attribute
  path.py:func:target          assignment inside a function (target: a name or self.attr)
  path.py:Class.method:target  the same inside a method
  path.py:func@N               the N-th string literal of a function body (from 1, in source order)
  path.py:NAME@N               the N-th string literal inside a module constant (e.g. a dict of prompts)
A value may be a literal, an f-string, implicit or `+` concatenation, a reference to a
module constant, or any of those followed by .strip()/.lstrip()/.rstrip()/.format(...).
"""

import ast
import json
import string
import sys
from pathlib import Path


class Unreadable(Exception):
    pass


def find_scope(tree, dotted):
    """The class/function node at a dotted path (empty path: the module)."""
    node = tree
    for part in [p for p in dotted.split(".") if p]:
        found = None
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and child.name == part:
                found = child
        if found is None:
            raise Unreadable(f"no class or function '{part}'")
        node = found
    return node


def target_name(t):
    if isinstance(t, ast.Name):
        return t.id
    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name):
        return f"{t.value.id}.{t.attr}"
    return None


def assigned_value(scope, name, deep):
    """The last value bound to `name` directly in scope (deep: anywhere in a function body)."""
    nodes = ast.walk(scope) if deep else ast.iter_child_nodes(scope)
    value = None
    for node in nodes:
        if isinstance(node, ast.Assign):
            if any(target_name(t) == name for t in node.targets):
                value = node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None and target_name(node.target) == name:
            value = node.value
    if value is None:
        raise Unreadable(f"nothing assigned to '{name}'")
    return value


def module_constant(tree, name):
    return assigned_value(tree, name, deep=False)


def segments_of(node, tree, fmt):
    """A string expression as text/field segments."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return format_segments(node.value) if fmt else [{"text": node.value}]
    if isinstance(node, ast.JoinedStr):
        out = []
        for part in node.values:
            if isinstance(part, ast.Constant):
                out.append({"text": part.value})
            elif isinstance(part, ast.FormattedValue):
                out.append({"field": ast.unparse(part.value)})
        return out
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return segments_of(node.left, tree, fmt) + segments_of(node.right, tree, fmt)
    if isinstance(node, ast.Name):
        return segments_of(module_constant(tree, node.id), tree, fmt)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        inner = segments_of(node.func.value, tree, fmt)
        method = node.func.attr
        if method in ("strip", "lstrip", "rstrip") and not node.args:
            return strip_segments(inner, method)
        if method == "format":
            if fmt:
                return inner
            text = "".join(s["text"] for s in inner if "text" in s)
            return format_segments(text)
    raise Unreadable(f"not a plain string expression ({type(node).__name__} at line {getattr(node, 'lineno', '?')})")


def format_segments(text):
    out = []
    for literal, field, spec, conv in string.Formatter().parse(text):
        if literal:
            out.append({"text": literal})
        if field is not None:
            if spec or conv:
                raise Unreadable(f"format field '{{{field}}}' has a conversion or format spec")
            out.append({"field": field})
    return out


def strip_segments(segs, method):
    segs = [dict(s) for s in segs]
    if method in ("strip", "lstrip"):
        while segs and "text" in segs[0]:
            segs[0]["text"] = segs[0]["text"].lstrip()
            if segs[0]["text"]:
                break
            segs.pop(0)
    if method in ("strip", "rstrip"):
        while segs and "text" in segs[-1]:
            segs[-1]["text"] = segs[-1]["text"].rstrip()
            if segs[-1]["text"]:
                break
            segs.pop()
    return segs


def nth_literal(scope, n, docstring=True):
    """The n-th string literal (plain or f-string) of a function body, outermost first, in source order."""
    found = []

    def visit(node):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.JoinedStr) or (isinstance(child, ast.Constant) and isinstance(child.value, str)):
                found.append(child)
            else:
                visit(child)

    body = scope.body
    if docstring and body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
        body = body[1:]  # the docstring is not a prompt
    for stmt in body:
        visit(ast.Module(body=[stmt], type_ignores=[]))
    found.sort(key=lambda n: (n.lineno, n.col_offset))
    if n < 1 or n > len(found):
        raise Unreadable(f"has {len(found)} string literals, not {n}")
    return found[n - 1]


def extract(root, locator, fmt, cache):
    if ":" not in locator:
        raise Unreadable("locator needs path.py:name")
    path, _, name = locator.partition(":")
    file = Path(root) / path
    if path not in cache:
        if not file.is_file():
            raise Unreadable(f"no file {path}")
        cache[path] = ast.parse(file.read_text(encoding="utf-8"), filename=str(file))
    tree = cache[path]
    if "@" in name:
        scope_path, _, n = name.rpartition("@")
        if scope_path and "." not in scope_path and not any(
            isinstance(c, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and c.name == scope_path for c in tree.body
        ):
            # A module constant holding several strings (a dict or list of prompts).
            holder = ast.Module(body=[ast.Expr(module_constant(tree, scope_path))], type_ignores=[])
            node = nth_literal(holder, int(n), docstring=False)
        else:
            node = nth_literal(find_scope(tree, scope_path), int(n))
    elif ":" in name:
        scope_path, _, target = name.partition(":")
        node = assigned_value(find_scope(tree, scope_path), target, deep=True)
    else:
        scope_path, _, attr = name.rpartition(".")
        node = assigned_value(find_scope(tree, scope_path), attr, deep=False)
    return segments_of(node, tree, fmt)


def main():
    request = json.load(sys.stdin)
    cache = {}
    result = {}
    for item in request["items"]:
        loc = item["locator"]
        try:
            result[loc] = {"segments": extract(request["root"], loc, bool(item.get("format")), cache)}
        except Unreadable as err:
            result[loc] = {"error": str(err)}
        except SyntaxError as err:
            result[loc] = {"error": f"cannot parse {err.filename}: {err.msg} (line {err.lineno})"}
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
