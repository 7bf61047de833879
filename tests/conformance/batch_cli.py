# batch_cli.py: the command lines of issue 11's cp.async batch generators (gen_ldgsts_small.py,
# gen_ldgsts_cg_small.py, gen_ldgsts_cg_rank_check.py, gen_ldgsts_fresh9.py,
# gen_ldgsts_cg_fresh10.py), one copy of each.
import argparse
import os
import sys


def stdout_or_file_main(description, text, out_file):
    """A batch that is not committed (or is diffed by ctest): --stdout prints it, else it is written
    to out_file."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--stdout", action="store_true", help="write the batch to stdout")
    args = ap.parse_args()
    if args.stdout:
        sys.stdout.write(text)
        return 0
    with open(out_file, "w") as f:
        f.write(text)
    print("wrote %s: %d patterns" % (out_file, text.count("\n")))
    return 0


def fresh_main(description, text, rows, rule, rule_name, out_file, pred_file):
    """A fresh batch for predict-then-measure: writes it (text, one line per row), --predict writes
    rule's predictions of it, --check / --check-predicted exit 1 unless the committed batch / the
    committed predictions are what the generator / the rule give now."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--check", action="store_true", help="exit 1 unless the committed batch is the generator's")
    ap.add_argument("--predict", action="store_true", help="write the rule's predictions")
    ap.add_argument("--check-predicted", action="store_true",
                    help="exit 1 unless the committed predictions are what the rule predicts now")
    a = ap.parse_args()
    pred = ""
    if a.predict or a.check_predicted:
        import json
        for r in rows:
            wf, cf = rule(r)
            pred += json.dumps({"id": r["id"], "wavefronts": wf, "bank_conflicts": cf, "rule": rule_name}) + "\n"
    if a.check or a.check_predicted:
        bad = 0
        for want, path, flag in ((text, out_file, a.check), (pred, pred_file, a.check_predicted)):
            if flag:
                same = os.path.exists(path) and open(path).read() == want
                print("%s: %s" % (path, "up to date" if same else "DIFFERS from what the generator and the rule give now"))
                bad += not same
        return 1 if bad else 0
    if a.predict:
        with open(pred_file, "w") as f:
            f.write(pred)
        print("%d predictions -> %s" % (pred.count("\n"), pred_file))
        return 0
    with open(out_file, "w") as f:
        f.write(text)
    print("%d patterns -> %s" % (len(rows), out_file))
    return 0
