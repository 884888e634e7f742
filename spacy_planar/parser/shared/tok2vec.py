"""The encoder either parser's factory gets by default: base.partial.cfg's tok2vec, and the
factories' default configs built around it."""
from pathlib import Path

from thinc.api import Config

WIDTH_VARIABLE = "${components.tok2vec.model.encode.width}"
VECTORS_VARIABLE = "${paths.vectors}"
DROPOUT_VARIABLE = "${training.dropout}"


def base_tok2vec() -> dict:
    """base.partial.cfg's tok2vec model, its width and dropout variables
    filled in (the dropout base.partial.cfg trains with) and without static
    vectors (``${paths.vectors}`` is a training config's; the factory's own
    tok2vec has none): the one definition of the encoder the factory's
    parser gets by default."""
    base = Config().from_disk(Path(__file__).resolve().parents[2] / "partials" / "base.partial.cfg", interpolate=False)
    model = base["components"]["tok2vec"]["model"]
    width = model["encode"]["width"]

    def fill(section):
        filled = {WIDTH_VARIABLE: width, VECTORS_VARIABLE: None, DROPOUT_VARIABLE: base["training"]["dropout"]}
        return {k: fill(v) if isinstance(v, dict) else (filled[v] if isinstance(v, str) and v in filled else v)
                for k, v in section.items()}

    return fill(model)


def default_model(config: str) -> Config:
    """A parser factory's default config (``[model]``, ``[scorer]`` ...) read from ``config``, its
    model given ``base_tok2vec()`` as its encoder."""
    out = Config().from_str(config)
    out["model"]["tok2vec"] = base_tok2vec()
    return out
