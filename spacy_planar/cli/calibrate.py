"""``calibrate``: fit the arc probabilities of a trained parser to held-out data, stored with the model."""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import typer

from spacy_planar.cli._app import app, load_pipeline, msg
from spacy_planar.corpus.files import given_sentences, input_docs
from spacy_planar.errors import Errors, UserError
from spacy_planar.io.conllu import MOVE_LOGP_KEY, PARSES_KEY, read_conllu
from spacy_planar.defaults import KBEST_BEAM
from spacy_planar.parser.transition.kbest import uncalibrated
from spacy_planar.parser.transition.pipe import PlanarParser


@app.command()
def calibrate(
    model: Path = typer.Argument(..., help="A trained pipeline with a planar_parser"),
    dev: Path = typer.Argument(..., help="Held-out gold CoNLL-U (the dev split; never the test split)"),
    output: Path = typer.Argument(..., help="Where the calibrated pipeline goes (may be MODEL itself)"),
    beam: int = typer.Option(KBEST_BEAM, "--beam",
                             help="The beam whose marginals are calibrated (parse with the same)"),
) -> None:
    """Fit the arc probabilities (``Token._.head_prob``, ``parse
    --confidence``) of every planar_parser of a pipeline on dev: its words
    are parsed with a beam of ``--beam``, and the temperature and the
    isotonic map that make the confidences of the best trees' arcs (beam
    marginal and move probabilities, ``kbest.arc_confidence``) match how
    often those arcs are right (``kbest.fit_calibration``) are stored in
    the parser's settings; the pipeline is written to OUTPUT as it was
    otherwise. Reports the expected calibration error on dev before and
    after."""

    from spacy_planar.parser.transition.kbest import fit_calibration

    if beam < 2:
        raise UserError(Errors.E109.format(kbest=beam, beam=beam))
    sents = [s for s in read_conllu(dev) if s.heads is not None]
    if not sents:
        raise UserError(Errors.E042.format(path=dev, line=1, sent=1))
    nlp = load_pipeline(model, {"beam_width": beam, "n_best": beam})
    ours = [name for name, pipe in nlp.pipeline if isinstance(pipe, PlanarParser) and pipe.settings.n_best]
    for name in ours:
        nlp.get_pipe(name).settings.calibration = uncalibrated()
    docs = list(given_sentences(nlp, input_docs(nlp, sents)))
    fitted = {}
    for name in ours:
        data = [([(p["prob"], p["heads"], p["labels"]) for p in alts], doc.user_data[MOVE_LOGP_KEY][start:end],
                 s.heads, s.deprels)
                for doc, s in zip(docs, sents) if doc._.parses
                for start, end, alts in doc.user_data[PARSES_KEY][:1]]
        fitted[name] = fit_calibration(data)
        fitted[name].update({"fitted_on": str(dev), "beam_width": beam})
        msg.info(f"{name}: temperature {fitted[name]['temperature']}, ECE on {dev} {fitted[name]['ece_raw']:.3f} "
                 f"-> {fitted[name]['ece']:.3f} (the map fitted there; the test split says how it holds)")
    final = load_pipeline(model)
    for name, cal in fitted.items():
        final.get_pipe(name).settings.calibration = cal
    with tempfile.TemporaryDirectory(dir=output.parent if output.parent.exists() else None) as tmp:
        final.to_disk(Path(tmp) / "model")
        if output.exists():
            shutil.rmtree(output)
        shutil.move(str(Path(tmp) / "model"), str(output))
    msg.good(f"Calibrated {', '.join(ours)}: {output}")
