"""What the two parser components (``planar_parser``, ``biaffine_parser``) share of spaCy's
TrainablePipe protocol: their settings as ``cfg``, their labels' data, ``add_label``, and how they
are saved and loaded: the settings (``cfg``, JSON: what each was configured with and what it
learned), the vocab and the model, whose dimensions are set from the settings (``_resize``) before
its weights are read."""
from __future__ import annotations

import srsly
from spacy import util


class ParserPipe:
    """For a component with ``settings`` (a dataclass with ``labels`` and ``to_dict``), ``labels``
    (the plain labels), ``_reset`` (the labels changed), ``_load_cfg`` (a saved cfg taken back)
    and ``_resize`` (the model's dimensions from the settings)."""

    @property
    def cfg(self) -> dict:
        """The settings as the component saves them; read only."""
        return self.settings.to_dict()

    @property
    def label_data(self) -> list:
        return list(self.labels)

    def finish_update(self, sgd) -> None:
        """TrainablePipe's, after telling an optimizer that divides by them (``FusedAdam``'s
        ``per_word``) the words of the last ``update``'s batch."""
        note = getattr(sgd, "note_words", None)
        if note is not None:
            note(getattr(self, "_step_words", 0))
        super().finish_update(sgd)

    def add_label(self, label: str) -> int:
        if label in self.settings.labels:
            return 0
        self.settings.labels = sorted(set(self.settings.labels) | {label})
        self._reset()
        return 1

    def to_bytes(self, *, exclude=tuple()) -> bytes:
        serialize = {
            "cfg": lambda: srsly.json_dumps(self.cfg),
            "vocab": lambda: self.vocab.to_bytes(exclude=exclude),
            "model": lambda: self.model.to_bytes(),
        }
        return util.to_bytes(serialize, exclude)

    def from_bytes(self, bytes_data: bytes, *, exclude=tuple()):
        deserialize = {
            "cfg": lambda b: self._load_cfg(srsly.json_loads(b)),
            "vocab": lambda b: self.vocab.from_bytes(b, exclude=exclude),
            "model": lambda b: None,
        }
        msg = util.from_bytes(bytes_data, deserialize, exclude)
        if "model" not in exclude and "model" in msg:
            self._resize()
            self.model.from_bytes(msg["model"])
        return self

    def to_disk(self, path, *, exclude=tuple()) -> None:
        serialize = {
            "cfg": lambda p: srsly.write_json(p, self.cfg),
            "vocab": lambda p: self.vocab.to_disk(p, exclude=exclude),
            "model": lambda p: self.model.to_disk(p),
        }
        util.to_disk(path, serialize, exclude)

    def from_disk(self, path, *, exclude=tuple()):
        deserialize = {
            "cfg": lambda p: self._load_cfg(srsly.read_json(p)),
            "vocab": lambda p: self.vocab.from_disk(p, exclude=exclude),
            "model": lambda p: None,
        }
        util.from_disk(path, deserialize, exclude)
        if "model" not in exclude:
            self._resize()
            with (util.ensure_path(path) / "model").open("rb") as f:
                self.model.from_bytes(f.read())
        return self
