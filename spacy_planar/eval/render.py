"""Pictures of dependency trees that show their planes, in displaCy's style.

displaCy draws every arc above the words; a tree whose arcs cross then
shows a tangle. ``render`` draws the links of the first plane above the
words and those of the other plane(s) below them, as the 2-planar parser
builds them on its two stacks (Gómez-Rodríguez & Nivre 2010, section 3:
planes from ``trees.plane_assignment``), and marks the non-projective arcs
(``trees.nonprojective_arcs``) in another colour. Arcs from the root are a
short arrow into the root word. Where the words have arc probabilities
(``Token._.head_prob``, or ``HeadProb`` in CoNLL-U), each arc is shaded by its
own: the doubtful arcs pale, the sure ones dark.
"""
from __future__ import annotations

import re
from html import escape
from typing import Dict, List, Optional, Sequence, Tuple

from spacy_planar.io.conllu import HEAD_PROBS_KEY
from spacy_planar.io.doc_trees import ud_tree
from spacy_planar.eval.metrics import Calibration
from spacy_planar.trees.algorithms import nonprojective_arcs, plane_assignment

WORD_GAP = 110  # horizontal distance between words
LEVEL = 34  # height added per word an arc spans
FONT = "Arial, sans-serif"
NONPROJECTIVE_COLOUR = "#c0392b"


def render_tree(words: Sequence[str], heads: Sequence[int], labels: Sequence[str],
                tags: Optional[Sequence[str]] = None, title: str = "",
                probs: Optional[Sequence[Optional[float]]] = None) -> str:
    """One tree as a standalone SVG: ``heads`` 1-based, 0 for a root. Each arc
    is a ``<g class="planar-arc">`` with ``data-plane`` (0: above the words,
    1 or more: below), ``data-head``, ``data-dep`` and, for non-projective
    arcs, the class ``nonprojective``. ``probs``: each word's arc
    probability (``Token._.head_prob``, ``HeadProb``), which shades its arc
    (the less probable, the paler), follows its label and is its
    ``data-prob``."""
    n = len(words)
    _, planes = plane_assignment(heads)
    nonproj = nonprojective_arcs(heads)
    # the longest arc above the words and below them sets the picture's height
    spans = {False: [0], True: [0]}
    for d, h in enumerate(heads, 1):
        if h > 0:
            spans[bool(planes[d - 1] > 0)].append(abs(h - d))
    base = 60 + LEVEL * max(spans[False])  # the words' baseline
    bottom = base + 40 + LEVEL * max(spans[True]) + (30 if any(heads) else 0)
    width = max(WORD_GAP * n + 40, 200)
    x = [40 + WORD_GAP * i + WORD_GAP // 2 for i in range(n)]
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="planar-tree" width="{width}" height="{bottom}" '
           f'viewBox="0 0 {width} {bottom}" style="font-family: {FONT}; background: #ffffff">']
    if title:
        out.append(f'<title>{escape(title)}</title>')
    for i, word in enumerate(words):
        out.append(f'<text class="planar-word" text-anchor="middle" x="{x[i]}" y="{base + 5}" '
                   f'font-size="16">{escape(word)}</text>')
        if tags:
            out.append(f'<text class="planar-tag" text-anchor="middle" x="{x[i]}" y="{base + 24}" '
                       f'font-size="12" fill="#777">{escape(tags[i])}</text>')
    for d, h in enumerate(heads, 1):
        out.append(_arc(x, base, d, h, labels[d - 1], int(planes[d - 1]), bool(nonproj[d - 1]),
                        below_words=30 if tags else 15, prob=probs[d - 1] if probs else None))
    out.append("</svg>")
    return "\n".join(out)


def _arc(x: List[int], base: int, d: int, h: int, label: str, plane: int, nonprojective: bool,
         below_words: int, prob: Optional[float] = None) -> str:
    """One arc h -> d: above the words on plane 0, below them otherwise; the
    arrowhead at the dependent; with ``prob``, shaded by it (opacity from
    0.15 at 0 to 1 at 1) and labelled with it."""
    colour = NONPROJECTIVE_COLOUR if nonprojective else "#333333"
    cls = "planar-arc" + (" nonprojective" if nonprojective else "")
    attrs = f'class="{cls}" data-head="{h}" data-dep="{d}" data-plane="{max(plane, 0)}"'
    if prob is not None:
        attrs += f' data-prob="{prob:.3f}" opacity="{0.15 + 0.85 * min(max(prob, 0.0), 1.0):.2f}"'
        label = f"{label} {prob:.2f}"
    xd = x[d - 1]
    if h == 0:  # the root: a short arrow from above into the word
        y0, y1 = base - 60, base - 18
        return (f'<g {attrs}><path d="M{xd},{y0} L{xd},{y1}" stroke="{colour}" stroke-width="2" fill="none"/>'
                f'{_head(xd, y1, 1, colour)}<text x="{xd + 4}" y="{y0 + 12}" font-size="12" fill="{colour}">'
                f'{escape(label)}</text></g>')
    xh = x[h - 1]
    below = plane > 0
    sign = 1 if below else -1
    y = base + below_words if below else base - 18
    lift = LEVEL * abs(h - d)
    peak = y + sign * lift
    path = f"M{xh},{y} C{xh},{peak} {xd},{peak} {xd},{y}"
    mid = (xh + xd) // 2
    label_y = y + sign * (lift * 3 // 4) + (12 if below else -4)
    dash = ' stroke-dasharray="6,3"' if nonprojective else ""
    return (f'<g {attrs}><path d="{path}" stroke="{colour}" stroke-width="2" fill="none"{dash}/>'
            f'{_head(xd, y, -sign, colour)}<text text-anchor="middle" x="{mid}" y="{label_y}" font-size="12" '
            f'fill="{colour}">{escape(label)}</text></g>')


def _head(x: int, y: int, direction: int, colour: str) -> str:
    """An arrowhead at (x, y) pointing down (direction 1) or up (-1)."""
    back = y - direction * 8
    return f'<path d="M{x},{y} L{x - 4},{back} L{x + 4},{back} Z" fill="{colour}"/>'


def render(doc, page: bool = False) -> str:
    """The sentences of a parsed Doc as one SVG, one above the other
    (``page``: a whole HTML page holding them)."""
    svgs = sentence_svgs(doc)
    return html_page(svgs) if page else stacked_svg(svgs)


def stacked_svg(svgs: Sequence[str], gap: int = 20) -> str:
    """SVG pictures (``render_tree``'s) one above the other in one SVG
    document: each nested at its offset, the whole as wide as the widest."""
    if len(svgs) == 1:
        return svgs[0]
    sizes = [tuple(int(v) for v in re.search(r'width="(\d+)" height="(\d+)"', svg).groups()) for svg in svgs]
    width = max((w for w, _ in sizes), default=0)
    height = sum(h for _, h in sizes) + gap * max(len(svgs) - 1, 0)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="planar-trees" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" style="background: #ffffff">']
    y = 0
    for svg, (_, h) in zip(svgs, sizes):
        out.append(svg.replace("<svg ", f'<svg y="{y}" ', 1))
        y += h + gap
    out.append("</svg>")
    return "\n".join(out)


def sentence_svgs(doc) -> List[str]:
    """One SVG per sentence of a parsed Doc, its arcs shaded by their
    probabilities where the Doc has them (``HEAD_PROBS_KEY``: a parser with
    ``n_best``, or ``HeadProb`` read from CoNLL-U)."""
    svgs = []
    probs = doc.user_data.get(HEAD_PROBS_KEY)
    for sent in doc.sents:
        heads, labels = ud_tree(doc, sent.start, sent.end)
        words = [t.text for t in sent]
        tags = [t.pos_ for t in sent] if any(t.pos_ for t in sent) else None
        shades = probs[sent.start:sent.end] if probs else None
        svgs.append(render_tree(words, heads, labels, tags, title=sent.text,
                                probs=shades if shades and any(p is not None for p in shades) else None))
    return svgs


def html_page(svgs: Sequence[str], title: str = "spacy-planar") -> str:
    """A standalone HTML page of SVG pictures, one above the other."""
    body = "\n".join(f'<figure style="margin: 1em 0; overflow-x: auto">{svg}</figure>' for svg in svgs)
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head><meta charset="utf-8"><title>{escape(title)}</title></head>\n'
            f'<body style="font-family: {FONT}">\n<p>Arcs above the words: the first plane; below: the second '
            f'(the 2-planar parser\'s other stack). Dashed red: non-projective arcs.</p>\n{body}\n</body>\n</html>\n')


def line_chart(series: Dict[str, Sequence[Tuple[float, float]]], x_label: str, y_label: str,
               width: int = 640, height: int = 400) -> str:
    """A small SVG line chart of named series of (x, y) points (``bench
    lengths``), axes from 0 with five ticks each."""
    colours = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf", "#7f7f7f")
    left, right, top, bottom = 60, 150, 20, 50
    xs = [x for pts in series.values() for x, _ in pts] or [1.0]
    ys = [y for pts in series.values() for _, y in pts] or [1.0]
    x_max, y_max = max(xs) * 1.05 or 1.0, max(ys) * 1.1 or 1.0
    px = lambda x: left + (width - left - right) * x / x_max  # noqa: E731
    py = lambda y: height - bottom - (height - top - bottom) * y / y_max  # noqa: E731
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" '
           f'font-size="12"><rect width="100%" height="100%" fill="white"/>',
           f'<line x1="{left}" y1="{py(0)}" x2="{px(x_max)}" y2="{py(0)}" stroke="black"/>',
           f'<line x1="{left}" y1="{py(0)}" x2="{left}" y2="{py(y_max)}" stroke="black"/>']
    for k in range(6):
        x, y = x_max * k / 5, y_max * k / 5
        out.append(f'<text x="{px(x):.1f}" y="{py(0) + 16}" text-anchor="middle">{x:.0f}</text>')
        out.append(f'<text x="{left - 6}" y="{py(y) + 4:.1f}" text-anchor="end">{y:.1f}</text>')
    out.append(f'<text x="{(left + width - right) / 2}" y="{height - 12}" text-anchor="middle">'
               f'{escape(x_label)}</text>')
    out.append(f'<text x="14" y="{(top + height - bottom) / 2}" text-anchor="middle" '
               f'transform="rotate(-90 14 {(top + height - bottom) / 2})">{escape(y_label)}</text>')
    for n, (name, pts) in enumerate(series.items()):
        colour = colours[n % len(colours)]
        path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in pts)
        out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
        out.append(f'<text x="{width - right + 10}" y="{top + 16 * (n + 1)}" fill="{colour}">{escape(name)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def reliability_svg(cal: Calibration, title: str = "", size: int = 320) -> str:
    """A reliability diagram: per bin a bar of the arcs' accuracy over the
    bin, the diagonal of perfect calibration, each bin's share of the arcs
    as the bar's shade; the ECE in the title. One standalone SVG."""
    bins = len(cal.counts)
    pad, plot = 40, size - 80  # below the plot: the ticks' labels, then the axis's own, a line apart
    w = plot / bins
    share = cal.counts / max(cal.n, 1)
    x = lambda v: pad + v * plot  # noqa: E731
    y = lambda v: pad + (1 - v) * plot  # noqa: E731
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" '
             f'viewBox="0 0 {size} {size}" font-family="sans-serif" font-size="11">',
             f'<rect x="{pad}" y="{pad}" width="{plot}" height="{plot}" fill="white" stroke="#444"/>']
    for i in range(bins):
        if cal.counts[i] == 0:
            continue
        acc = float(cal.accuracy[i])
        opacity = 0.25 + 0.75 * min(1.0, float(share[i]) * bins / 2)
        parts.append(f'<rect x="{x(i / bins) + 1:.1f}" y="{y(acc):.1f}" width="{w - 2:.1f}" '
                     f'height="{plot * acc:.1f}" fill="#3465a4" fill-opacity="{opacity:.2f}">'
                     f'<title>{i / bins:.1f}-{(i + 1) / bins:.1f}: {int(cal.counts[i])} arcs, '
                     f'accuracy {acc:.3f}, mean probability {cal.confidence[i]:.3f}</title></rect>')
    parts.append(f'<line x1="{x(0)}" y1="{y(0)}" x2="{x(1)}" y2="{y(1)}" stroke="#cc0000" stroke-dasharray="4 3"/>')
    for v in (0, 0.5, 1):
        parts.append(f'<text x="{x(v):.0f}" y="{pad + plot + 14}" text-anchor="middle">{v:g}</text>')
        parts.append(f'<text x="{pad - 6}" y="{y(v) + 4:.0f}" text-anchor="end">{v:g}</text>')
    middle = pad + plot / 2
    parts.append(f'<text x="{middle:.0f}" y="{pad + plot + 32}" text-anchor="middle">arc probability</text>')
    parts.append(f'<text x="12" y="{middle:.0f}" text-anchor="middle" transform="rotate(-90 12 {middle:.0f})">'
                 'accuracy</text>')
    heading = f"{title} ECE {cal.ece:.3f}, {cal.n} arcs".strip()
    parts.append(f'<text x="{size / 2:.0f}" y="{pad - 14}" text-anchor="middle">{escape(heading)}</text>')
    parts.append("</svg>\n")
    return "\n".join(parts)
