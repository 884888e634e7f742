"""The configs of docs/results.md's biaffine probes (issue 79), each the accurate biaffine pipeline
(`spacy-planar init-config biaffine OUT --tagging --accurate`: since 2026-12-04 the positional
scorers with Eisner decoding of pseudo-projective trees) with one lever changed, written into
OUT_DIR as PROBE.cfg; then train each with `train.sh OUT_DIR/PROBE.cfg TB SEED PROBE` (the overrides
below after it where a probe has some). `eisner OUT MODEL` copies a trained pipeline with its
biaffine_parser decoding projective trees (no retraining) to OUT.

usage: biaffine_probes.py configs OUT_DIR | biaffine_probes.py eisner OUT MODEL
"""
import shutil
import subprocess
import sys
from pathlib import Path

from thinc.api import Config

PARSER = ("components", "biaffine_parser")
# the biaffine of 2026-12-03, the positional scorers alone (2.): MST over the trees as they are; the
# probes of 2026-12-04 (p3, p5) were run on it, the shipped biaffine (baseline) is 2. with 4.
TWO = {(*PARSER, "decoder"): "mst", (*PARSER, "pseudo_projective"): None}
# the parser's own BiLSTM of probe 3
LSTM = {"@architectures": "spacy-planar.BiLSTMEncoder.v1", "width": "${components.tok2vec.model.encode.width}",
        "depth": 1, "dropout": "${training.dropout}", "cnn_depth": 0, "window_size": 1, "maxout_pieces": 3}
PROBES = {
    "baseline": {},
    # the biaffine before the positional scorers (2026-11-29 to 2026-12-03: the runs of p1 and p3 then)
    "p0_no_positional": {**TWO, (*PARSER, "model", "positional_width"): 0},
    # 1. the leaders' batches and optimizer pair, the patience schedule bounded by steps: train.sh with
    # EPOCHS=0 and --training.batcher.size.start 2000 --training.batcher.size.stop 5000
    # --training.batcher.size.compound 1.002 --training.max_steps 500 --training.eval_frequency 50
    "p1_batches": {**TWO, (*PARSER, "model", "positional_width"): 0, ("training", "optimizer", "learn_rate"): 0.002,
                   ("training", "optimizer", "beta2"): 0.9},
    # and on the shipped biaffine (2026-12-04), with the same train.sh overrides
    "p1_batches_shipped": {("training", "optimizer", "learn_rate"): 0.002, ("training", "optimizer", "beta2"): 0.9},
    # 2. Stanza's linearization and distance scorers (the factory's since 2026-12-03)
    "p2_positional": TWO,
    # 3. a BiLSTM of the parser's own above the shared encoder (run 2026-12-03 without the positional
    # scorers, 2026-12-04 on the shipped biaffine); and the taggers-first pipeline (init-config ...
    # --taggers-first: the parser's own encoder reads the taggers' predictions), on the shipped biaffine
    "p3_lstm": {**TWO, (*PARSER, "model", "positional_width"): 0, (*PARSER, "model", "encoder"): LSTM},
    "p3_lstm_shipped": {(*PARSER, "model", "encoder"): LSTM},
    "p3_taggers_first": {},
    # 4. projective decoding of pseudo-projective trees (head+path, as arc-eager's): the factory's since
    # 2026-12-04, the baseline
    "p4_eisner_pp": {},
    # 5. regularization and scale: Dozat & Manning's dropouts, Stanza's label MLP; the loss per word
    "p5_dropout": {**TWO, (*PARSER, "model", "input_dropout"): 0.33, (*PARSER, "model", "mlp_dropout"): 0.33,
                   (*PARSER, "model", "label_width"): 400},
    "p5_per_word": {**TWO, (*PARSER, "loss_per_word"): True},
}


# the probes written by init-config with more flags than --tagging --accurate
FLAGS = {"p3_taggers_first": ["--taggers-first"]}


def write_configs(out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, changes in PROBES.items():
        base = out_dir / f"{name}.cfg"
        subprocess.run([sys.executable, "-m", "spacy_planar", "init-config", "biaffine", str(base), "--tagging",
                        "--accurate", *FLAGS.get(name, [])], check=True, stdout=subprocess.DEVNULL)
        config = Config().from_disk(base, interpolate=False)
        for path, value in changes.items():
            node = config
            for key in path[:-1]:
                node = node[key]
            node[path[-1]] = value
        config.to_disk(out_dir / f"{name}.cfg", interpolate=False)


def eisner(out: Path, model: Path) -> None:
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(model, out)
    config = Config().from_disk(out / "config.cfg", interpolate=False)
    config["components"]["biaffine_parser"]["decoder"] = "eisner"
    config.to_disk(out / "config.cfg", interpolate=False)


if __name__ == "__main__":
    if sys.argv[1] == "configs":
        write_configs(Path(sys.argv[2]))
    else:
        eisner(Path(sys.argv[2]), Path(sys.argv[3]))
