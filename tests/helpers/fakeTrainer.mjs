// A stand-in for a local trainer (TRL, LLaMA-Factory ...), used by the train-loop tests.
// usage: node fakeTrainer.mjs <train.jsonl> <round> <model>
// Appends what it received to $TRAINER_LOG, then prints the new checkpoint's spec on its LAST line:
// $TRAINER_SPEC (default builtin:heuristic). $FAIL_ROUND=r: fails at round r (stderr, exit 3);
// $NO_SPEC_ROUND=r: prints nothing at round r.
import { appendFileSync, readFileSync } from "node:fs";

const [train, round, model] = process.argv.slice(2);
const examples = readFileSync(train, "utf8")
  .split("\n")
  .filter((l) => l.trim()).length;
appendFileSync(process.env.TRAINER_LOG, `${JSON.stringify({ train, round: Number(round), model, examples })}\n`);
if (process.env.FAIL_ROUND === round) {
  process.stderr.write("loading the model...\nRuntimeError: CUDA out of memory (fake)\n");
  process.exit(3);
}
if (process.env.NO_SPEC_ROUND === round) process.exit(0);
process.stderr.write(`epoch 1/1: ${examples} examples\n`);
process.stdout.write(`trained round ${round} on ${examples} examples\n`);
process.stdout.write(`${process.env.TRAINER_SPEC ?? "builtin:heuristic"}\n`);
