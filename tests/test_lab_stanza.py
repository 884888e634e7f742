"""`lab stanza`'s reruns: a model trained to its budget is kept, a larger budget goes on."""
from spacy_planar_lab.stanza import trained, write_curves


def log_of(tmp_path, *ends):
    lines = ["$ python -m stanza.models.parser --mode train"]
    for step in ends:
        lines += [f"INFO: step {step}: train_loss = 4.5, dev_score = 0.{step}",
                  f"INFO: Training ended with {step} steps."]
    (tmp_path / "parser.log").write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_a_parser_trained_to_its_budget_is_kept_and_a_larger_one_goes_on(tmp_path):
    assert not trained(tmp_path, "parser", 200)  # no log: never trained
    (tmp_path / "parser.log").write_text("INFO: step 100: train_loss = 8.6, dev_score = 0.39\n")
    assert not trained(tmp_path, "parser", 200)  # interrupted before its end
    log_of(tmp_path, 200)
    assert trained(tmp_path, "parser", 200) and trained(tmp_path, "parser", 100)
    assert trained(tmp_path, "parser", None)
    assert not trained(tmp_path, "parser", 300)
    log_of(tmp_path, 200, 300)  # the rerun appends to the log
    assert trained(tmp_path, "parser", 300)
    write_curves(tmp_path)
    rows = (tmp_path / "curve.tsv").read_text(encoding="utf-8").splitlines()
    assert rows[1:] == ["parser\t200\t4.5\t0.200", "parser\t300\t4.5\t0.300"]
