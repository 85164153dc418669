"""A stand-in for the parts of gym (0.9) a 2017 control script uses: ``gym.make``
of a pendulum or a cart-pole, whose observations are numpy arrays (a ``Box``
space); the cart-pole's actions must be ints, as gym's ``Discrete`` space asserts."""
import math

import numpy as np


class Box(object):
    def __init__(self, low, high, shape):
        self.low, self.high, self.shape = low, high, shape


class Pendulum(object):
    def __init__(self):
        self.observation_space = Box(-8.0, 8.0, (3,))
        self.action_space = Box(-2.0, 2.0, (1,))
        self.rng = np.random.RandomState(0)
        self.theta = self.speed = 0.0

    def _observation(self):
        return np.array([math.cos(self.theta), math.sin(self.theta), self.speed])

    def reset(self):
        self.theta = self.rng.uniform(-math.pi, math.pi)
        self.speed = self.rng.uniform(-1.0, 1.0)
        return self._observation()

    def step(self, action):
        torque = float(np.clip(action, -2.0, 2.0)[0])
        cost = self.theta ** 2 + 0.1 * self.speed ** 2 + 0.001 * torque ** 2
        self.speed = float(np.clip(self.speed + (3 * math.sin(self.theta) + 3 * torque) * 0.05,
                                   -8.0, 8.0))
        self.theta += self.speed * 0.05
        return self._observation(), -cost, False, {}


class Discrete(object):
    def __init__(self, n):
        self.n = n

    def contains(self, x):
        return isinstance(x, (int, np.integer)) and 0 <= x < self.n


class CartPole(object):
    def __init__(self):
        self.observation_space = Box(-4.8, 4.8, (4,))
        self.action_space = Discrete(2)
        self.rng = np.random.RandomState(0)
        self.state = None

    def reset(self):
        self.state = self.rng.uniform(-0.05, 0.05, size=(4,))
        return np.array(self.state)

    def step(self, action):
        assert self.action_space.contains(action), "%r (%s) invalid" % (action, type(action))
        x, x_dot, theta, theta_dot = self.state
        force = 10.0 if action == 1 else -10.0
        cos, sin = math.cos(theta), math.sin(theta)
        temp = (force + 0.05 * theta_dot ** 2 * sin) / 1.1
        theta_acc = (9.8 * sin - cos * temp) / (0.5 * (4.0 / 3.0 - 0.1 * cos ** 2 / 1.1))
        x_acc = temp - 0.05 * theta_acc * cos / 1.1
        self.state = np.array([x + 0.02 * x_dot, x_dot + 0.02 * x_acc,
                               theta + 0.02 * theta_dot, theta_dot + 0.02 * theta_acc])
        done = abs(self.state[0]) > 2.4 or abs(self.state[2]) > 0.21
        return np.array(self.state), 1.0, bool(done), {}


def make(name):
    environments = {"Pendulum-v0": Pendulum, "CartPole-v0": CartPole}
    return environments[name]()
