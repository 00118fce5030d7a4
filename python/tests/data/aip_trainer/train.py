"""A trainer written for AI Platform, unchanged: argparse flags and
`import hypertune` (cloudml-hypertune's API). Its loss falls with the
steps; the learning rate only scales it."""

import argparse

import hypertune


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--learning_rate", type=float, required=True)
    parser.add_argument("--steps", type=int, default=3)
    args = parser.parse_args()
    hpt = hypertune.HyperTune()
    for step in range(1, args.steps + 1):
        loss = args.learning_rate / step
        hpt.report_hyperparameter_tuning_metric(
            hyperparameter_metric_tag="loss", metric_value=loss,
            global_step=step)
    print(f"trained with learning_rate={args.learning_rate}", flush=True)


if __name__ == "__main__":
    main()
