"""The code action "apply the likely fix": where an assessed function (unchanged since) has a likely
fix (``qualm.engine.fix``), a quick fix whose edit replaces the changed span. The edit carries a
change annotation that needs confirmation, so the editor shows the change (VS Code: its refactor
preview, a diff) with the checks it makes pass before anything is written. Offered through the code
action handler of regenerate.py (one handler per LSP method)."""

from __future__ import annotations

from lsprotocol import types

from ...engine.placement import source_to_document
from ...lang import SourceError
from ..server import QualmServer, UnknownDocument

ANNOTATION = "qualm-likely-fix"


def fix_actions(ls: QualmServer, uri: str, where: types.Range, diagnostics: list[types.Diagnostic]) -> list[types.CodeAction]:
    """The likely fixes of the assessed functions that ``where`` touches. Each is the preferred quick
    fix of its suspect line's diagnostic (among ``diagnostics``, the client's at ``where``), so the
    editor lists it first and its auto-fix command applies it."""
    state = ls.docs.get(uri)
    if state is None or not state.assessments:
        return []
    try:
        doc, document = ls.document(uri)
        assessed = state.current_assessments(document)
    except (UnknownDocument, SourceError):
        return []
    out = []
    for fn, a in assessed:
        fix = a.fix.fix if a.fix is not None else None
        if fix is None:
            continue
        if where.end.line < fn.line - 1 or where.start.line > fn.end_line - 1:
            continue
        to_doc = source_to_document(state.text, fn.line, fn.source)
        c = fix.candidate
        edit = types.AnnotatedTextEdit(range=ls.to_ranges(doc, [(to_doc(c.start), to_doc(c.end))])[0], new_text=c.replacement, annotation_id=ANNOTATION)
        passing = "; ".join(fix.newly_passing[:4]) + (f" and {len(fix.newly_passing) - 4} more" if len(fix.newly_passing) > 4 else "")
        note = types.ChangeAnnotation(
            label=f"qualm: likely fix of {fn.name}",
            needs_confirmation=True,
            description=f"passes {fix.passed} of {fix.total} checks, the code {fix.base}; now passes: {passing}" + (f"; now fails: {'; '.join(fix.newly_failing[:2])}" if fix.newly_failing else ""),
        )
        ident = types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=doc.version)
        related = [d for d in diagnostics if d.source == "qualm" and d.code == "suspect" and d.range.start.line == fix.line - 1]
        out.append(
            types.CodeAction(
                title=f"qualm: apply the likely fix ({fix.describe()})",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=related or None,
                is_preferred=True,
                edit=types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(text_document=ident, edits=[edit])], change_annotations={ANNOTATION: note}),
            )
        )
    return out
