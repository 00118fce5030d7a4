"""Logistic regression on a deterministic synthetic dataset, in pure Python.

The data: x in R^10 with feature j ~ N(0, s_j^2), scales s_j spread
geometrically from 0.2 to 3.0, and y ~ Bernoulli(sigmoid(w*.x + b*)) with
w*_j = c_j / s_j, c_j ~ N(0, 1), so every feature matters equally. The loss's
Hessian then has eigenvalues about 225 times apart: a learning rate large
enough to fit the small-scale features within a few hundred steps is close to
unstable on the large-scale ones, and momentum trades the two against each
other. The best held-out loss is therefore reached in a narrow band of
learning_rate / (1 - momentum), which makes a small but non-trivial tuning
problem.

Parameters are one list: the weights, then the bias. Optimiser: SGD with
heavy-ball momentum, v <- momentum * v + g, w <- w - learning_rate * v
(PyTorch's formulation), applied by whoever holds the parameters.
"""

import math
import random

FEATURES = 10
DIMENSION = FEATURES + 1  # weights and bias
TRAIN_EXAMPLES = 2000
TEST_EXAMPLES = 1000


def make_dataset(seed):
    """Returns (train, test): lists of (features, label) pairs."""
    rng = random.Random(seed)
    scales = [0.2 * 15.0 ** (j / (FEATURES - 1)) for j in range(FEATURES)]
    true_weights = [rng.gauss(0.0, 1.0) / s for s in scales]
    true_bias = 0.5

    def example():
        x = [rng.gauss(0.0, s) for s in scales]
        z = sum(w * v for w, v in zip(true_weights, x)) + true_bias
        return x, 1 if rng.random() < _sigmoid(z) else 0

    train = [example() for _ in range(TRAIN_EXAMPLES)]
    test = [example() for _ in range(TEST_EXAMPLES)]
    return train, test


def shard(examples, rank, trainers):
    """Trainer `rank`'s share of the training set: every trainers-th example."""
    return examples[rank::trainers]


def batch_for_step(examples, step, rank, batch_size, seed):
    """The batch trainer `rank` uses at global step `step`.

    A function of (seed, step, rank) only, so a restarted replica, or a replay
    from a checkpoint, computes exactly the same gradients.
    """
    rng = random.Random("%d/%d/%d" % (seed, step, rank))
    if batch_size <= len(examples):
        return rng.sample(examples, batch_size)
    return rng.choices(examples, k=batch_size)


def gradient(params, examples):
    """Mean gradient of the log loss over `examples`."""
    grad = [0.0] * DIMENSION
    for x, y in examples:
        error = _sigmoid(_logit(params, x)) - y
        for j, v in enumerate(x):
            grad[j] += error * v
        grad[FEATURES] += error
    return [g / len(examples) for g in grad]


def evaluate(params, examples):
    """Returns (mean log loss, accuracy) of `params` on `examples`."""
    total_loss = 0.0
    correct = 0
    for x, y in examples:
        z = _logit(params, x)
        # log(1 + e^z) - y z, written to stay finite for any z.
        total_loss += max(z, 0.0) + math.log1p(math.exp(-abs(z))) - y * z
        correct += (z > 0) == (y == 1)
    return total_loss / len(examples), correct / len(examples)


def apply_momentum_step(params, velocity, grad, learning_rate, momentum):
    """One SGD-with-momentum update, in place."""
    for j, g in enumerate(grad):
        velocity[j] = momentum * velocity[j] + g
        params[j] -= learning_rate * velocity[j]


def _logit(params, x):
    return sum(w * v for w, v in zip(params, x)) + params[FEATURES]


def _sigmoid(z):
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)
