"""The ``planar_ensemble`` component: pipelines trained apart on one treebank (seeds of one config,
or different parsers) inside one loadable pipeline, parsing exactly as ``parse M1 --ensemble M2``
does (``members.Ensemble``: the taggers' probabilities averaged, one system's moves as one, other
parsers reparsed).

The pipeline ``ensemble_pipeline`` writes is the first member's components before its tok2vec
(multiword tokens, the senter: the words and sentences every member reads) and then this one,
which holds the members whole, each saved in a folder of its own under the component's; the first
member is loaded into the pipeline's vocab (the Docs it annotates are the pipeline's), the others
into their own (``members.Ensemble`` copies the Docs for them). The members' transition parsers
parse with ``beam_width`` where it is set (``parse --ensemble`` of different parsers: a beam whose
k best parses vote, ``loading.ensemble_beam``). ``spacy.load``, ``nlp.pipe``, ``spacy-planar
package`` and ``download`` treat it as any pipeline.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterable, Iterator, List, Optional, Sequence

from spacy.language import Language
from spacy.tokens import Doc
from spacy.util import ensure_path, minibatch

from spacy_planar.errors import Errors, UserError
from spacy_planar.io.pipelines import MEMBER, pipeline_path
from spacy_planar.parser.ensembles.loading import beam_config, ensemble_beam


@Language.factory("planar_ensemble", default_config={"members": 0, "beam_width": None, "batch_size": 128})
def make_planar_ensemble(nlp: Language, name: str, members: int, beam_width: Optional[int], batch_size: int):
    """Several pipelines trained on one treebank as one (the module's text). ``members``: how many
    (saved in the component's folder, read by ``from_disk``); ``beam_width``: the members'
    transition parsers' beam (None: their own); ``batch_size``: the Docs annotated at a time."""
    return PipelineEnsemble(nlp.vocab, name, members, beam_width, batch_size)


class PipelineEnsemble:
    """The component: a ``members.Ensemble`` of the pipelines it holds (``set_members``, or read
    from its folder), which annotates the Docs after the pipeline's own first components."""

    def __init__(self, vocab, name: str, members: int, beam_width: Optional[int], batch_size: int):
        self.vocab = vocab
        self.name = name
        self.n_members = members
        self.beam_width = beam_width
        self.batch_size = batch_size
        self.ensemble = None  # members.Ensemble, once the members are there

    def set_members(self, pipelines: Sequence[Language]) -> None:
        from spacy_planar.parser.ensembles.members import Ensemble

        self.ensemble = Ensemble(pipelines[0], pipelines[1:])
        self.n_members = len(pipelines)

    @property
    def members(self) -> List[Language]:
        return [] if self.ensemble is None else list(self.ensemble.members)

    def __call__(self, doc: Doc) -> Doc:
        return next(self.pipe([doc]))

    def pipe(self, docs: Iterable[Doc], batch_size: Optional[int] = None) -> Iterator[Doc]:
        if self.ensemble is None:
            raise UserError(Errors.E164.format(name=self.name))
        for batch in minibatch(docs, batch_size or self.batch_size):
            yield from self.ensemble.annotate(list(batch), run_first=False)

    def to_disk(self, path, *, exclude=tuple()) -> None:
        path = ensure_path(path)
        path.mkdir(parents=True, exist_ok=True)
        for k, member in enumerate(self.members):
            member.to_disk(path / MEMBER.format(k))

    def from_disk(self, path, *, exclude=tuple()) -> "PipelineEnsemble":
        import spacy

        path = ensure_path(path)
        beam = None if self.beam_width is None else {"beam_width": self.beam_width}
        folders = [path / MEMBER.format(k) for k in range(self.n_members)]
        self.set_members([spacy.load(folder, vocab=self.vocab if k == 0 else True, config=beam_config(folder, beam))
                          for k, folder in enumerate(folders)])
        return self


def ensemble_pipeline(paths: Sequence[str], out: Path) -> Path:
    """The pipelines at ``paths`` (the first's words and sentences) written as one loadable
    pipeline at ``out`` (the module's text): what ``package --ensemble`` packages. One line
    (E136) where they cannot be one."""
    import spacy

    folders = [pipeline_path(p) for p in paths]
    beam = ensemble_beam([str(f) for f in folders])
    members = [spacy.load(f, config=beam_config(f, beam)) for f in folders]
    first = spacy.load(folders[0])
    at = first.pipe_names.index("tok2vec") if "tok2vec" in first.pipe_names else 0
    for name in first.pipe_names[at:]:
        first.remove_pipe(name)
    component = first.add_pipe("planar_ensemble", config={"members": len(members),
                                                          "beam_width": None if beam is None else beam["beam_width"]})
    component.set_members(members)  # E136 where the members differ
    first.meta["description"] = (f"{len(members)} pipelines as one (spacy-planar's planar_ensemble): "
                                 + ", ".join(m.meta.get("name", "") for m in members))
    first.to_disk(out)
    return out
