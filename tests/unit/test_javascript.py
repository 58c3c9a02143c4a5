"""JavaScript and TypeScript through the language seam (tree-sitter's grammars): the functions of a
file with their lines and bodies, comment scopes, syntax errors, and the completion prompt."""

import pytest

from qualm.engine.placement import source_to_document
from qualm.lang import JAVASCRIPT, TSX, TYPESCRIPT, SourceError, language_for, language_ids
from qualm.trace import TokenRecord, Trace

JS = '''import fs from "fs";
const path = require("path");

/**
 * Adds two numbers.
 */
export function add(a, b) {
  // the sum
  return a + b;
}

const square = (x) => x * x;

export const twice = async (f) => {
  function inner() { return 1; }
  return f(f());
};

class Counter extends Base {
  /** Bumps the count. */
  inc(n) {
    this.n += n; /* kept */
    return this.n;
  }
  reset = () => {
    this.n = 0;
  };
  static #hidden() {}
}
const label = function named(x) { return "é" + x; };
'''

TS = '''interface Shape { area(): number; }
type Id = string;
enum Colour { Red }
declare function external(): void;
function first<T>(xs: T[]): T | undefined;
function first<T>(xs: T[]): T | undefined {
  return xs[0];
}

abstract class Box<T> implements Shape {
  abstract area(): number;
  @logged()
  public get(key: string): T {
    return this.items[key];
  }
}
'''


def _by_name(functions):
    return {fn.name: fn for fn in functions}


def test_javascript_functions_names_lines_and_bodies():
    fns = _by_name(JAVASCRIPT.functions_in(JS, "a.js"))
    assert list(fns) == ["add", "square", "twice", "twice.inner", "Counter.inc", "Counter.reset", "Counter.#hidden", "label"]
    add = fns["add"]
    assert (add.line, add.end_line, add.col) == (7, 10, 0)
    assert add.source == "export function add(a, b) {\n  // the sum\n  return a + b;\n}\n"
    assert add.source[add.body_offset :] == "  // the sum\n  return a + b;\n}\n"
    # the JSDoc is the docstring: in the problem, with the imports, not in the function's own lines
    assert add.problem_description == 'import fs from "fs";\nconst path = require("path");\n\n/**\n * Adds two numbers.\n */\nexport function add(a, b) {\n'
    assert add.language == "javascript"
    sq = fns["square"]
    assert (sq.line, sq.source[: sq.body_offset], sq.source[sq.body_offset :]) == (12, "const square = (x) =>", " x * x;\n")
    assert fns["twice"].source.startswith("export const twice = async (f) => {\n") and (fns["twice"].line, fns["twice"].end_line) == (14, 17)
    inc = fns["Counter.inc"]
    assert (inc.line, inc.end_line, inc.col) == (21, 24, 2)
    assert inc.source == "inc(n) {\n  this.n += n; /* kept */\n  return this.n;\n}\n"  # dedented by the method's indentation
    assert inc.header == "/** Bumps the count. */\ninc(n) {\n"
    assert fns["Counter.reset"].source[fns["Counter.reset"].body_offset :] == "  this.n = 0;\n};\n"
    assert fns["label"].source[fns["label"].body_offset :] == ' return "é" + x; };\n'


def test_typescript_types_overloads_and_abstract_members_are_not_functions():
    fns = _by_name(TYPESCRIPT.functions_in(TS, "a.ts"))
    assert list(fns) == ["first", "Box.get"]
    first = fns["first"]
    assert (first.line, first.end_line) == (6, 8)  # the implementation, not the overload above it
    assert first.header == "function first<T>(xs: T[]): T | undefined {\n"
    get = fns["Box.get"]
    assert get.line == 13  # the decorator's line above is not the method's
    assert get.source[get.body_offset :] == "  return this.items[key];\n}\n"
    assert get.language == "typescript"


def test_every_body_character_maps_back_to_the_same_character_of_the_document():
    for fn in JAVASCRIPT.functions_in(JS, "a.js") + TYPESCRIPT.functions_in(TS, "a.ts"):
        text = JS if fn.language == "javascript" else TS
        to_doc = source_to_document(text, fn.line, fn.source)
        body = range(fn.body_offset, len(fn.source))
        assert body, fn.name
        assert all(text[to_doc(i)] == fn.source[i] for i in body if not fn.source[i].isspace()), fn.name


def test_tsx_is_typescript_with_jsx_and_ts_casts_are_typescript_only():
    app = TSX.functions_in("const App = (p: Props) => {\n  return <div>{/* c */}{p.x}</div>;\n};\n", "a.tsx")
    assert [fn.name for fn in app] == ["App"] and app[0].language == "tsx"
    cast = "function f(x: unknown) {\n  return <string>x;\n}\n"
    assert [fn.name for fn in TYPESCRIPT.functions_in(cast, "a.ts")] == ["f"]
    with pytest.raises(SourceError):
        TSX.functions_in(cast, "a.tsx")


def test_a_syntax_error_is_a_source_error_with_the_place_and_the_problem():
    with pytest.raises(SourceError, match=r"^b\.js:2:\d+: the file does not parse: missing '}'"):
        JAVASCRIPT.functions_in("function f() {\n  return 1;\n", "b.js")
    with pytest.raises(SourceError, match=r"^b\.ts:\d+:\d+: the file does not parse: unexpected"):
        TYPESCRIPT.functions_in("function f(: number {\n}\n", "b.ts")


def test_find_function_and_function_at():
    assert JAVASCRIPT.find_function(JS, "inc").name == "Counter.inc"
    assert JAVASCRIPT.function_at(JS, 15).name == "twice.inner"
    assert JAVASCRIPT.function_at(JS, 16).name == "twice"
    with pytest.raises(SourceError, match="not inside a function"):
        JAVASCRIPT.function_at(JS, 1)


def test_scopes_comments_jsdoc_and_strings():
    text = '/** Doc. */\nfunction f() {\n  // line\n  const s = "// not a comment";\n  return s; /* block */\n}\n'
    spans = JAVASCRIPT.scope_spans(text)
    assert [(text[a:b], scope) for a, b, scope in spans] == [("/** Doc. */", "docstring"), ("// line", "comment"), ("/* block */", "comment")]
    # non-ASCII text before a comment: offsets are characters, not UTF-8 bytes
    text = 'const é = "ü"; // ok\n'
    (a, b, scope), = TYPESCRIPT.scope_spans(text)
    assert (text[a:b], scope) == ("// ok", "comment")
    # a truncated generation still has its comments
    text = "function f(x) {\n  // first\n  return x +"
    assert [text[a:b] for a, b, _ in JAVASCRIPT.scope_spans(text)] == ["// first"]


def test_annotate_scopes_sets_each_tokens_scope():
    text = "// c\nlet x = 1;\n"
    pieces = ["// c", "\n", "let", " x", " =", " 1", ";", "\n"]
    tokens, at = [], 0
    for i, piece in enumerate(pieces):
        tokens.append(TokenRecord(i, i, piece, at, at + len(piece), 0.1, 0.9, ()))
        at += len(piece)
    scopes = [t.scope for t in JAVASCRIPT.annotate_scopes(Trace(text, tuple(tokens), "m", "scored")).tokens]
    assert scopes == ["comment", "code", "code", "code", "code", "code", "code", "code"]


def test_completion_context_inside_a_function():
    offset = JS.index("return a + b;")
    ctx = JAVASCRIPT.completion_context(JS, offset)
    assert ctx.function == "add" and ctx.indent == ""
    assert ctx.written == "export function add(a, b) {\n  // the sum\n  " and ctx.heal == "  "
    assert "Complete the following JavaScript Code:" in ctx.prompt.user
    assert "/**\n * Adds two numbers.\n */\nexport function add(a, b) {" in ctx.prompt.user
    assert "return" not in ctx.prompt.user  # only the header is the problem
    assert ctx.prompt.assistant_prefix.endswith('```javascript\nimport fs from "fs";\nconst path = require("path");\n\nexport function add(a, b) {\n  // the sum\n')


def test_completion_context_in_a_method_is_dedented_and_at_top_level_is_the_lines_before():
    offset = JS.index("return this.n;") + len("return this.n;")
    ctx = JAVASCRIPT.completion_context(JS, offset)
    assert (ctx.function, ctx.indent) == ("Counter.inc", "  ")
    assert ctx.written == "inc(n) {\n  this.n += n; /* kept */\n  return this.n;"
    offset = JS.index("class Counter")
    ctx = JAVASCRIPT.completion_context(JS, offset)
    assert ctx.function is None and ctx.written.endswith("return f(f());\n};\n\n")


def test_completion_context_in_a_function_still_being_written():
    text = "function f(a) {\n  if (a) {\n    return "
    ctx = TYPESCRIPT.completion_context(text, len(text))
    assert ctx.function == "f" and ctx.written == text and ctx.heal == " "
    assert "Complete the following TypeScript Code:" in ctx.prompt.user and "```typescript\n" in ctx.prompt.assistant_prefix


def test_languages_by_id_and_suffix():
    assert {"javascript", "javascriptreact", "typescript", "typescriptreact"} <= set(language_ids())
    assert language_for("javascriptreact") is JAVASCRIPT and language_for("typescriptreact") is TSX
    for name, lang in [("a.js", JAVASCRIPT), ("a.mjs", JAVASCRIPT), ("a.cjs", JAVASCRIPT), ("a.jsx", JAVASCRIPT), ("a.ts", TYPESCRIPT), ("a.mts", TYPESCRIPT), ("a.cts", TYPESCRIPT), ("a.tsx", TSX)]:
        assert language_for(filename=name) is lang, name
    assert JAVASCRIPT.runs_tests is False and TYPESCRIPT.runs_tests is False


def test_the_extensions_languages_setting_offers_exactly_the_servers_language_ids():
    import json
    from pathlib import Path

    manifest = json.loads((Path(__file__).resolve().parents[2] / "package.json").read_text())
    # contributes.configuration is a list of titled sections
    (setting,) = [s["properties"]["qualm.languages"] for s in manifest["contributes"]["configuration"] if "qualm.languages" in s["properties"]]
    assert setting["items"]["enum"] == language_ids()
    assert setting["default"] == ["python"] and setting["markdownDescription"]
    assert {f"onLanguage:{i}" for i in language_ids()} <= set(manifest["activationEvents"])
