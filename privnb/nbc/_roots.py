"""Certified k-th roots for SafetyTransform's Step 2 (Section 5 of MZ09): Newton steps at doubling
precision, then one step whose Decimal operations round outward, so every root is bracketed exactly and
rounded to one power-of-two grid inside Statement 7's windows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import MAX_EMAX, MIN_EMIN, ROUND_CEILING, ROUND_FLOOR, Context, Decimal

from privnb.nbc.views import NBCViews, count_tables, integer_tables


def score_bound(views: NBCViews) -> int:
    """An integer B bounding both cross-products ``prod_i N_i Q_c'`` compared by eq. (2) (Statement 8).

    Parameters
    ----------
    views : NBCViews
        The views.

    Returns
    -------
    int
    """
    tables, ppow = integer_tables(views)
    return int(max(int(v) for v in ppow)) * math.prod(max(int(v) for v in t.ravel()) for t in tables)


def precision_bits(views: NBCViews, k: int) -> int:
    """E with ``(2n-1) |C| 2^-E < 1 / (k (B+1))``: Step 2's rounding cannot flip any order.

    Parameters
    ----------
    views : NBCViews
        The views whose k-th roots Step 2 takes.
    k : int
        The root's degree.

    Returns
    -------
    int
    """
    n, n_classes = views.n_attributes, len(views.labels)
    return (2 * (2 * n - 1) * n_classes * k * (score_bound(views) + 1)).bit_length() + 1


def _outward(digits: int) -> tuple[Context, Context]:
    """Decimal contexts rounding down and up to ``digits`` significant digits, exponents unbounded.

    Decimal operations are correctly rounded: a result rounded down is below the exact value by less
    than ``10^(1-digits)`` of it.
    """
    return tuple(
        Context(prec=digits, rounding=mode, Emin=MIN_EMIN, Emax=MAX_EMAX) for mode in (ROUND_FLOOR, ROUND_CEILING)
    )


def _power_bounds(low: Decimal, n: int, loss: Decimal, down: Context, up: Context) -> tuple[Decimal, Decimal]:
    """Bounds on ``z^n`` for every ``z`` in ``[low, low / (1 - loss)]`` (``low > 0``).

    Binary powering rounded down gives the lower bound. Each of its products loses less than
    ``delta = 10^(1-digits)`` of its value, and the squarings after it raise that loss to powers that sum
    to less than ``2n``, so ``z^n <= lower / ((1 - loss)^n (1 - delta)^(2n))``
    ``<= lower / (1 - n loss - 2n delta)``.
    """
    power = low
    for bit in bin(n)[3:]:
        power = down.multiply(power, power)
        if bit == "1":
            power = down.multiply(power, low)
    slack = up.add(up.multiply(n, loss), up.scaleb(2 * n, 1 - up.prec))
    return power, up.divide(power, down.subtract(1, slack))


def _root_step(y: Decimal, x_low: Decimal, x_high: Decimal, k: int, down: Context, up: Context):
    """Bounds on ``x^(1/k)`` for every ``x`` in ``[x_low, x_high]``, from a guess ``y > 0``.

    With ``u = x / y^k``, ``x^(1/k) = y u^(1/k)`` and ``1 + (1 - 1/u)/k <= u^(1/k) <= 1 + (u - 1)/k``
    (``ln u >= 1 - 1/u``, and the tangent at 1 of the concave ``u^(1/k)``): the bracket is
    ``O((u - 1)^2 / k)`` wide, and its upper end is Newton's step from y.
    """
    q_low, q_high = _power_bounds(y, k, Decimal(0), down, up)
    low = down.multiply(y, down.add(1, down.divide(down.subtract(1, up.divide(q_high, x_low)), k)))
    high = up.multiply(y, up.add(1, up.divide(up.subtract(up.divide(x_high, q_low), 1), k)))
    return low, high


@dataclass(frozen=True)
class RootPlan:
    """How Step 2 (Figure 4 of MZ09) computes its k-th roots for a power and ``bits`` of precision.

    ``down`` and ``up`` round to ``digits``, which keep a bracket's rounding error (about
    ``(8 + (3 power + 5) / k) 10^(1-digits)`` of the root: ``2k`` products' worth through ``y^k``,
    ``3 power`` through ``x``, divided by k by the root) far below ``2^-(bits+5)``. ``guesses`` are the
    contexts of Newton's steps, each about doubling the correct digits (less ``log10 k``) from a float's
    16 up to about half of ``digits``, where one certified step (:func:`_root_step`) completes them.
    """

    k: int
    power: int
    bits: int
    down: Context
    up: Context
    guesses: tuple

    @classmethod
    def make(cls, k: int, power: int, bits: int) -> RootPlan:
        """The plan for k-th roots of counts raised to ``power``, to ``bits`` bits of precision.

        Parameters
        ----------
        k : int
            The root's degree.
        power : int
            The power each count is raised to before the root.
        bits : int
            The precision the brackets must reach: width at most ``2^-(bits+5)`` of the root.

        Returns
        -------
        RootPlan
            With ``digits`` (of ``down`` and ``up``) and the Newton precisions ``guesses`` set from them.
        """
        digits = math.ceil((bits + 8) * math.log10(2) + math.log10(10 + 4 * (power + 1) / k)) + 2
        slack = len(str(k))
        precisions = [(digits + slack) // 2 + 2]
        while precisions[-1] > 2 * slack + 16:
            precisions.append((precisions[-1] + slack) // 2 + 1)
        guesses = tuple(Context(prec=p, Emin=MIN_EMIN, Emax=MAX_EMAX) for p in reversed(precisions))
        return cls(k, power, bits, *_outward(digits), guesses)

    def bounds(self, numerator: int, denominator: int, divisor: int) -> tuple[Decimal, Decimal]:
        """``low <= (v^power / divisor)^(1/k) <= high`` with ``v = numerator / denominator`` and
        ``high - low <= 2^-(bits+5) low``.

        A float estimate, Newton's steps at the ``guesses`` precisions, then certified steps
        (:func:`_root_step`) until the bracket is that tight.

        Parameters
        ----------
        numerator, denominator : int
            The count ``v = numerator / denominator`` (both positive).
        divisor : int
            What ``v^power`` is divided by before the root (a class's divisor).

        Returns
        -------
        (Decimal, Decimal)
            ``low`` and ``high``.
        """
        k, power, down, up = self.k, self.power, self.down, self.up
        v_low = down.divide(numerator, denominator)
        x_low, x_high = _power_bounds(v_low, power, up.scaleb(1, 1 - up.prec), down, up)
        x_low, x_high = down.divide(x_low, divisor), up.divide(x_high, divisor)
        log2 = (power * (math.log2(numerator) - math.log2(denominator)) - math.log2(divisor)) / k
        whole = math.floor(log2)
        y = down.multiply(Decimal(2.0 ** (log2 - whole)), down.power(2, whole))
        for ctx in self.guesses:
            y = ctx.multiply(y, ctx.add(1, ctx.divide(ctx.subtract(ctx.divide(x_low, ctx.power(y, k)), 1), k)))
        scale = 2 ** (self.bits + 5)
        while True:
            low, high = _root_step(y, x_low, x_high, k, down, up)
            if low > 0 and up.multiply(up.subtract(high, low), scale) <= low:
                return low, high
            y = high


def rounded_roots(views: NBCViews, k: int, bits: int, *, ranks=None, power: int = 1, divisors=None):
    """Step 2's roots ``x = (count^power / divisor_c)^(1/k)`` as integers over ``2^shift``, with
    class-steered errors (Statement 7). Returns (P list, N tables, shift).

    With ``eta = 2^-bits``, ``rho = 1 + eta`` and ``j`` the class's rank, ``N`` is ``rho^j`` times an
    upper bound of x rounded up, ``P`` is ``rho^-j`` times a lower bound rounded down, to a multiple of
    ``2^-shift``. The bounds are within ``eta/32`` of each other (:meth:`RootPlan.bounds`) and
    ``2^-shift <= rho^-j x eta/32``, so ``rho^j x <= N <= rho^j x (1 + eta/16) < rho^(j+1/2) x`` and
    ``rho^-(j+1/2) x < rho^-j x (1 - eta/16) <= P <= rho^-j x``.

    Parameters
    ----------
    views : NBCViews
        The views whose counts are rooted.
    k : int
        The root's degree.
    bits : int
        The precision: ``eta = 2^-bits``.
    ranks : sequence of int, optional
        Each class's rank j (default its position).
    power : int
        The power each count is raised to first.
    divisors : sequence, optional
        Each class's divisor (default 1).

    Returns
    -------
    (list, list, int)
        The class counts P, the count tables N and ``shift``.
    """
    n_classes = len(views.labels)
    ranks = list(range(n_classes)) if ranks is None else list(ranks)
    divisors = [1] * n_classes if divisors is None else list(divisors)
    plan = RootPlan.make(k, power, bits)
    bounds: dict = {}

    def bound(value, c):  # (low, high as an integer ratio)
        key = (value.numerator, value.denominator, divisors[c])  # counts are ints or Fractions
        if key not in bounds:
            low, high = plan.bounds(*key)
            bounds[key] = low, high.as_integer_ratio()
        return bounds[key]

    p_low = [bound(v, c)[0].as_integer_ratio() for c, v in enumerate(views.class_counts)]
    n_high = [[[bound(v, c)[1] for c, v in enumerate(row)] for row in t] for t in count_tables(views)]
    # x >= high / 2 > 2^(bit lengths' difference - 2), and rho^-j >= 2^-j
    smallest = min(num.bit_length() - den.bit_length() for _, (num, den) in bounds.values())
    shift = max(0, bits + 7 + max(ranks) - smallest)
    grow, shrink = [(2**bits + 1) ** j for j in ranks], [2 ** (bits * j) for j in ranks]
    p = [(num * shrink[c] << shift) // (den * grow[c]) for c, (num, den) in enumerate(p_low)]
    tables = [
        [[-((-num * grow[c] << shift) // (den * shrink[c])) for c, (num, den) in enumerate(row)] for row in t]
        for t in n_high
    ]
    return p, tables, shift
