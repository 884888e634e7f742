"""spacy-planar.Adam.v1 (model/optimizer.py) updates weights as Thinc's Adam.v1 does, to float32
rounding, over many steps, with each setting that changes the step; Thinc's own step where the
arrays are not contiguous numpy float32."""
import numpy
import pytest
from thinc.api import registry

SETTINGS = [
    {},  # Thinc's defaults: L2 as weight decay, clipping at 1, averages
    {"L2": 0.01, "L2_is_weight_decay": True, "grad_clip": 1.0, "use_averages": False},  # base.partial.cfg's
    {"L2": 0.001, "L2_is_weight_decay": False, "grad_clip": 0.0, "use_averages": True},
    {"learn_rate": 0.01, "beta1": 0.8, "beta2": 0.99, "eps": 1e-6, "grad_clip": 0.05},  # clipping every step
]


def _both(settings):
    ours = registry.resolve({"o": {"@optimizers": "spacy-planar.Adam.v1", **settings}})["o"]
    thinc = registry.resolve({"o": {"@optimizers": "Adam.v1", **settings}})["o"]
    return ours, thinc


@pytest.mark.parametrize("settings", SETTINGS)
def test_fused_adam_steps_as_thincs_adam(settings):
    from spacy_planar.model.optimizer import FusedAdam

    ours, thinc = _both(settings)
    assert isinstance(ours, FusedAdam) and not isinstance(thinc, FusedAdam)
    rng = numpy.random.default_rng(0)
    shapes = {(1, "W"): (7, 5), (1, "b"): (7,), (2, "W"): (3, 2, 4)}
    w_ours = {k: rng.normal(size=s).astype("float32") for k, s in shapes.items()}
    w_thinc = {k: v.copy() for k, v in w_ours.items()}
    for step in range(40):
        for key, shape in shapes.items():
            g = (rng.normal(size=shape) * (0.3 if step % 3 else 3.0)).astype("float32")  # some steps clip
            g_ours, g_thinc = g.copy(), g.copy()
            w_ours[key], g_ours = ours(key, w_ours[key], g_ours, lr_scale=0.5 if step % 7 == 0 else 1.0)
            w_thinc[key], g_thinc = thinc(key, w_thinc[key], g_thinc, lr_scale=0.5 if step % 7 == 0 else 1.0)
            assert not g_ours.any() and not g_thinc.any()  # the gradient zeroed, as Thinc's
        ours.step_schedules()
        thinc.step_schedules()
    for key in shapes:
        assert w_ours[key].shape == shapes[key]
        numpy.testing.assert_allclose(w_ours[key], w_thinc[key], rtol=1e-5, atol=1e-6)
        assert not numpy.allclose(w_ours[key], w_ours[key] * 0)  # weights moved, not zeroed
    assert (ours.averages is None) == (thinc.averages is None)
    for key in shapes if ours.averages is not None else ():
        numpy.testing.assert_allclose(ours.averages[key], thinc.averages[key], rtol=1e-5, atol=1e-6)


def test_fused_adam_gives_non_contiguous_arrays_to_thincs_step():
    ours, thinc = _both({})
    rng = numpy.random.default_rng(1)
    w = rng.normal(size=(6, 4)).astype("float32")
    g = rng.normal(size=(6, 4)).astype("float32")
    a, _ = ours((0, "W"), w.copy()[:, ::2], g.copy()[:, ::2])  # a view with strides: Thinc's path
    b, _ = thinc((0, "W"), w.copy()[:, ::2], g.copy()[:, ::2])
    numpy.testing.assert_allclose(a, b, rtol=1e-6)


@pytest.mark.parametrize("per_word", [False, True])
def test_global_clip_steps_as_thincs_adam_on_the_clipped_gradients(per_word):
    """clip_global: a step's gradients held to step_schedules, divided by the noted words
    (per_word), scaled together to the global norm grad_clip, then each stepped as Thinc's Adam
    steps them without a clip of its own."""
    settings = {"grad_clip": 0.5, "use_averages": True}
    ours = registry.resolve({"o": {"@optimizers": "spacy-planar.Adam.v1", "clip_global": True,
                                   "per_word": per_word, **settings}})["o"]
    thinc = registry.resolve({"o": {"@optimizers": "Adam.v1", **{**settings, "grad_clip": 0.0}}})["o"]
    rng = numpy.random.default_rng(2)
    shapes = {(1, "W"): (7, 5), (1, "b"): (7,), (2, "W"): (3, 4)}
    w_ours = {k: rng.normal(size=s).astype("float32") for k, s in shapes.items()}
    w_thinc = {k: v.copy() for k, v in w_ours.items()}
    clipped = 0
    for step in range(30):
        grads = {k: (rng.normal(size=s) * (0.02 if step % 2 else 3.0)).astype("float32") for k, s in shapes.items()}
        words = 10 + step
        scale = 1.0 / words if per_word else 1.0
        norm = scale * sum(float((g.astype("float64") ** 2).sum()) for g in grads.values()) ** 0.5
        scale *= min(1.0, 0.5 / norm)
        clipped += norm > 0.5
        ours.note_words(words)
        for key, g in grads.items():
            before = w_ours[key].copy()
            w, g_given = ours(key, w_ours[key], g.copy())
            assert not g_given.any() and (w == before).all()  # consumed, held: stepped at the step's end
            g_given += 1.0  # what a shim or the next backward does to it does not reach the held copy
            w_thinc[key], _ = thinc(key, w_thinc[key], g * numpy.float32(scale))
        ours.step_schedules()
        thinc.step_schedules()
    assert 0 < clipped < 30  # some steps clipped, some not
    for key in shapes:
        numpy.testing.assert_allclose(w_ours[key], w_thinc[key], rtol=1e-4, atol=1e-5)
        numpy.testing.assert_allclose(ours.averages[key], thinc.averages[key], rtol=1e-4, atol=1e-5)


def test_global_clip_ends_a_step_at_a_parameter_given_twice():
    """Without step_schedules (nlp.update(sgd=...) in a loop of one's own), the second step's first
    parameter steps the first step's."""
    ours = registry.resolve({"o": {"@optimizers": "spacy-planar.Adam.v1", "clip_global": True}})["o"]
    w = numpy.ones((3, 2), dtype="float32")
    ours((1, "W"), w, numpy.ones((3, 2), dtype="float32"))
    assert (w == 1).all()
    ours((1, "W"), w, numpy.ones((3, 2), dtype="float32"))
    assert (w < 1).all()  # the first step's
    stepped = w.copy()
    ours.step_schedules()
    assert (w < stepped).all()  # the second's


def test_per_word_needs_the_global_clip():
    from spacy_planar.errors import UserError

    with pytest.raises(UserError, match="E169"):
        registry.resolve({"o": {"@optimizers": "spacy-planar.Adam.v1", "per_word": True}})


def test_per_word_without_words_is_said_and_raises_when_debugging(monkeypatch):
    """per_word with no component giving the step's words (no parser trained): W130, the step
    clipped as sums; under SPACY_PLANAR_DEBUG=1 an error."""
    from spacy_planar.errors import UnexpectedError, UnexpectedWarning

    ours = registry.resolve({"o": {"@optimizers": "spacy-planar.Adam.v1", "clip_global": True, "per_word": True}})["o"]
    w = numpy.ones((3, 2), dtype="float32")
    monkeypatch.delenv("SPACY_PLANAR_DEBUG", raising=False)
    ours((1, "W"), w, numpy.ones((3, 2), dtype="float32"))
    with pytest.warns(UnexpectedWarning, match="W130"):
        ours.step_schedules()
    assert (w < 1).all()
    monkeypatch.setenv("SPACY_PLANAR_DEBUG", "1")
    ours((1, "W"), w, numpy.ones((3, 2), dtype="float32"))
    with pytest.raises(UnexpectedError, match="W130"):
        ours.step_schedules()
