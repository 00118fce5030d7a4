"""A trainer for the job tests: prints, reports through hptune.report, and
with --wait_for FILE waits (up to 120 s) until FILE exists before it ends."""

import argparse
import os
import time

import hptune


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--x", type=float, required=True)
    parser.add_argument("--wait_for", default="")
    args = parser.parse_args()
    trial = os.environ.get("CLOUD_ML_TRIAL_ID")
    print(f"hello from trial {trial} with x={args.x}", flush=True)
    hptune.report(step=1, loss=10 + args.x)
    if args.wait_for:
        print("waiting for the test", flush=True)
        deadline = time.monotonic() + 120
        while not os.path.exists(args.wait_for):
            if time.monotonic() > deadline:
                raise SystemExit("the test never released this trial")
            time.sleep(0.02)
    hptune.report(step=2, loss=(args.x - 0.25) ** 2)
    print("done", flush=True)


if __name__ == "__main__":
    main()
