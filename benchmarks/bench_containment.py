"""Timings of privnb.mechanisms.containment and privnb.learn.feature_selection against brute-force
pairwise implementations measured in the same run.

Greedy-DistCnt on PU1 (k = 5); a k-AC check of a candidate feature set on Adult; closed-form HamDist and
DistCnt against all positive-negative pairs; pyfim against mlxtend for the maximal itemsets; the exact
largest-itemsets search of Maximal (Algorithm 1) on every PU1 token against intersecting every k-row subset. Brute force
that would run for hours is timed on a sample of its work and extrapolated (marked "est.").
The DP baselines' draws (FSAC's Laplace- and Exponential-DP): one exponential pick over every PU1 token and the
noise of a 4096-cell table, vectorised against diffprivlib's per-candidate and per-cell path, with the same draws.
RF's SVM on flipped PU1 rows, every row against each repeated row once (weighted), in the same process.
RF's flipping of Adult and PU1 training folds, against the former path (a sparse row gather, mean and stable
argsort per cluster, a dense copy of the whole matrix), kept below; the count of repeated flipped rows, packed
bits against ``repeated_rows(method="loop")``, a Python loop over rows; the same output checked.
A maximal feasible set over PU1's frequent tokens, most frequent first (notebook 03's Definition 6 section), with
each greedy step's patterns split by the new token against the former step (patterns rebuilt, containment by a
product).
Run: PRIVNB_DATA=/work/shared/data .venv/bin/python benchmarks/bench_containment.py [dp|rf|flip|maximal]  (that
part only)
"""

import sys
import time
from math import comb

import numpy as np
import scipy.sparse as sp

from privnb.data import binarize_adult, load_adult, load_pu1
from privnb.learn import greedy_distcnt, largest_itemsets, maximal_feasible, maximal_itemsets
from privnb.learn.feature_selection import GreedyState
from privnb.mechanisms import dp_select_release, feature_hamdist, is_k_ac
from privnb.mechanisms.containment import Patterns, check_binary, distcnt, hamdist
from privnb.mechanisms.dp_release import exponential_pick, geometric_counts, hamdist_sensitivity


def timed(fn, *args, repeat=1, **kwargs):
    best, out = np.inf, None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn(*args, **kwargs)
        best = min(best, time.perf_counter() - start)
    return best, out


def brute_entity_ac(dense, rows):
    """Pairwise containment: for each given row, count the rows that hold all its features."""
    return np.array([(dense[:, dense[i] == 1] == 1).all(axis=1).sum() for i in rows])


def brute_distcnt(dense, positive):
    """All positive-negative pairs, told apart when they differ on at least one feature."""
    pos, neg = dense[positive], dense[~positive]
    return sum(int((pos[i] != neg).any(axis=1).sum()) for i in range(len(pos)))


def brute_largest_itemset_size(dense, combos):
    """The most tokens any of the given k-row subsets hold in common (the naive route to Algorithm 1's input)."""
    return max(int(np.logical_and.reduce(dense[list(c)]).sum()) for c in combos)


def diffprivlib_pick(utility, epsilon, sensitivity, seed):
    """The former path: diffprivlib's Exponential mechanism, built and validated for one pick."""
    from diffprivlib.mechanisms import Exponential

    mechanism = Exponential(epsilon=epsilon, sensitivity=sensitivity, utility=utility.tolist(), random_state=seed)
    return mechanism.randomise()


def diffprivlib_counts(codes, n_cells, epsilon, seed):
    """The former path: diffprivlib's histogram, one truncated geometric mechanism draw per cell."""
    from diffprivlib.tools import histogram

    counts, _ = histogram(codes, epsilon=epsilon, bins=n_cells, range=(-0.5, n_cells - 0.5), random_state=seed)
    return np.rint(counts).astype(np.int64)


def bench_dp_draws(P, y):
    """The DP baselines' draws on PU1, vectorised against diffprivlib in this process, with the same draws."""
    utility, sensitivity = feature_hamdist(P, y), hamdist_sensitivity(y)
    epsilon = 1.0 / (2 * 11)  # one of 11 picks at epsilon = 1
    t_old, old = timed(lambda: [diffprivlib_pick(utility, epsilon, sensitivity, s) for s in range(20)], repeat=3)
    t_new, new = timed(lambda: [exponential_pick(utility, epsilon, sensitivity, s) for s in range(20)], repeat=3)
    print(
        f"exponential pick over {utility.size} PU1 tokens: diffprivlib {1e3 * t_old / 20:.2f} ms, vectorised "
        f"{1e3 * t_new / 20:.3f} ms per pick; ratio {t_old / t_new:.0f}x; same picks: {old == new}"
    )
    codes = np.random.default_rng(0).integers(0, 4096, P.shape[0])
    counts = np.bincount(codes, minlength=4096)
    t_old, old = timed(lambda: [diffprivlib_counts(codes, 4096, 0.5, s) for s in range(5)], repeat=3)
    t_new, new = timed(lambda: [geometric_counts(counts, 0.5, s) for s in range(5)], repeat=3)
    same = all((a == b).all() for a, b in zip(old, new))
    print(
        f"noisy table of 4096 cells: diffprivlib {1e3 * t_old / 5:.1f} ms, vectorised {1e3 * t_new / 5:.2f} ms; "
        f"ratio {t_old / t_new:.0f}x; same counts: {same}"
    )
    t_release, release = timed(dp_select_release, P, y, 11, 1.0, mechanism="exponential", random_state=0)
    print(f"Exponential-DP release on PU1 (11 picks, epsilon = 1): {t_release:.3f} s, {release.X.shape[0]} rows")


def bench_rf_fits(P, y):
    """RF's tuned SVM on flipped PU1 training folds: every row against each repeated row once, weighted."""
    from privnb.experiments.feature_selection._svm import auc_or_nan, fit_svm
    from privnb.experiments.feature_selection.runner import selection_folds
    from privnb.mechanisms import randomized_flipping

    splits, _, seeds = selection_folds(y, 5, 0)
    for fold, k in ((0, 5), (1, 11)):
        train, test = splits[fold]
        flipped = randomized_flipping(P[train], k, random_state=seeds[fold])
        aucs, seconds = [], []
        for merge in (False, True):
            elapsed, model = timed(fit_svm, flipped.X, y[train], merge_repeats=merge, random_state=seeds[fold])
            aucs.append(auc_or_nan(y[test], model.decision_function(P[test])))
            seconds.append(elapsed)
        print(
            f"RF's SVM on flipped PU1 (fold {fold}, k = {k}, {len(train)} x {P.shape[1]}): every row "
            f"{seconds[0]:.2f} s, repeated rows merged {seconds[1]:.2f} s; ratio {seconds[0] / seconds[1]:.1f}x; "
            f"test AUC {aucs[0]:.4f} against {aucs[1]:.4f}"
        )


def former_flipping(X, k, random_state):
    """The former path of :func:`privnb.mechanisms.randomized_flipping` (same draws, same output)."""
    from privnb.mechanisms.containment import row_keys

    n, d = X.shape
    rng = np.random.RandomState(random_state)
    _, first, inverse, counts = np.unique(row_keys(X), return_index=True, return_inverse=True, return_counts=True)
    small = np.flatnonzero(counts[inverse.ravel()] < k)
    out = X.toarray().astype(np.int8)
    sub = X[small]
    sizes = np.asarray(sub.sum(axis=1)).ravel().astype(np.float64)
    remaining, vectors = np.ones(small.size, dtype=bool), [X[first[counts >= k]].toarray()]

    def hamming(vector):
        return sizes + float(vector.sum()) - 2.0 * (sub @ vector.astype(np.float64))

    seed = int(rng.randint(small.size))
    while remaining.sum() >= k:
        dist = hamming(sub[[seed]].toarray().ravel())
        dist[~remaining] = np.inf
        members = np.argsort(dist, kind="stable")[:k]
        vector = (rng.random_sample(d) < np.asarray(sub[members].mean(axis=0)).ravel()).astype(np.int8)
        vectors.append(vector[None, :])
        out[small[members]] = vector
        remaining[members] = False
        if remaining.any():
            far = hamming(vector)
            far[~remaining] = -np.inf
            seed = int(np.argmax(far))
    if remaining.any():
        pool = np.vstack(vectors).astype(np.float64)
        left = np.flatnonzero(remaining)
        dist = sizes[left, None] + pool.sum(axis=1)[None, :] - 2.0 * (sub[left] @ pool.T)
        out[small[left]] = pool[np.argmin(dist, axis=1)]
    return sp.csr_array(out), int(np.count_nonzero(out != X.toarray())) / (n * d)


def same_csr(a, b):
    fields = ("indptr", "indices", "data")
    return a.dtype == b.dtype and all(np.array_equal(getattr(a, f), getattr(b, f)) for f in fields)


def bench_flipping(named):
    """RF's flipping and the repeated rows its SVM merges, on 4/5 of each data set, against their loops."""
    from privnb.experiments.feature_selection._svm import repeated_rows
    from privnb.mechanisms import randomized_flipping

    for name, X, y in named:
        train = np.random.default_rng(0).permutation(X.shape[0])[: X.shape[0] * 4 // 5]
        X, y = X[train], np.asarray(y)[train]
        for k in (5, 11):
            t_old, (old, share) = timed(former_flipping, X, k, 0)
            t_new, new = timed(randomized_flipping, X, k, random_state=0)
            same = same_csr(old, new.X) and share == new.flipped_share
            t_rold, rold = timed(repeated_rows, new.X, y, method="loop")
            t_rnew, rnew = timed(repeated_rows, new.X, y)
            rsame = same_csr(rold[0], rnew[0]) and all(np.array_equal(a, b) for a, b in zip(rold[1:], rnew[1:]))
            print(
                f"RF flipping, {name} ({X.shape[0]} x {X.shape[1]}), k = {k}: former {t_old:.3f} s, now "
                f"{t_new:.3f} s; ratio {t_old / t_new:.1f}x; same output: {same}. Repeated rows: loop "
                f"{1e3 * t_rold:.1f} ms, auto {1e3 * t_rnew:.1f} ms; ratio {t_rold / t_rnew:.1f}x; same: {rsame}"
            )


def former_add(state, feature):
    """The former greedy step: the selected features' patterns rebuilt, their containment relation by a product."""
    state.selected.append(int(feature))
    state.patterns = Patterns(state.X, np.array(state.selected))


def bench_maximal_order(P):
    """A maximal feasible set over PU1's tokens held by at least 5 rows, most frequent first (the costliest of
    notebook 03's Definition 6 orders: frequent tokens split the rows most): each step's patterns split by the
    new token, the relation carried over, against the former step."""
    support = np.asarray(P.sum(axis=0)).ravel()
    frequent = np.flatnonzero(support >= 5)
    order = frequent[np.lexsort((frequent, -support[frequent]))]
    t_split, now = timed(maximal_feasible, P, 5, order)
    split_add, GreedyState.add = GreedyState.add, former_add
    try:
        t_former, before = timed(maximal_feasible, P, 5, order)
    finally:
        GreedyState.add = split_add
    print(
        f"maximal feasible set over PU1's {order.size} tokens held by 5 rows, most frequent first, k = 5: split "
        f"{t_split:.2f} s, rebuilt {t_former:.2f} s ({now.features.size} tokens, same: "
        f"{np.array_equal(now.features, before.features)}); ratio {t_former / t_split:.1f}x"
    )


def main():
    adult = load_adult(version="train", drop_missing=False)
    A = check_binary(binarize_adult(adult.frame))
    pu1 = load_pu1(subject=False)  # Table 3's 24604 tokens
    P, y = check_binary(pu1.X), pu1.y
    positive = y == 1

    # Greedy-DistCnt on PU1 against a pairwise greedy (estimated from one step on a sample of candidates)
    t_greedy, sel = timed(greedy_distcnt, P, y, 5)
    print(
        f"Greedy-DistCnt on PU1 ({P.shape[0]} x {P.shape[1]}), k = 5: {t_greedy:.2f} s, "
        f"{sel.features.size} features, AC {sel.ac}"
    )
    candidates = np.flatnonzero(np.asarray(P.sum(axis=0)).ravel() >= 5)
    sample = candidates[:20]
    dense_cols = P[:, sample].toarray()
    start = time.perf_counter()
    for j in range(sample.size):
        brute_distcnt(dense_cols[:, [j]], positive)
        brute_entity_ac(dense_cols[:, [j]], np.arange(0, P.shape[0], 50))
    per_candidate = (time.perf_counter() - start) / sample.size * 50  # AC on every 50th row -> all rows
    brute_total = per_candidate * candidates.size * max(1, sel.features.size)
    print(
        f"  pairwise greedy (est.): {per_candidate * 1e3:.1f} ms per candidate x {candidates.size} candidates "
        f"x {sel.features.size} steps = {brute_total:.0f} s; ratio {brute_total / t_greedy:.0f}x"
    )

    # k-AC check of a candidate set on Adult
    S = greedy_distcnt(A, adult.y, 5).features
    t_check, ok = timed(is_k_ac, A, 5, S, repeat=5)
    dense = A[:, S].toarray()
    rows = np.arange(0, A.shape[0], 100)
    t_brute, _ = timed(brute_entity_ac, dense, rows)
    t_brute *= A.shape[0] / rows.size
    print(
        f"k-AC check on Adult ({A.shape[0]} rows, {S.size} features): {t_check * 1e3:.1f} ms (k-AC: {ok}); "
        f"pairwise (est.) {t_brute:.1f} s; ratio {t_brute / t_check:.0f}x"
    )

    # HamDist and DistCnt in closed form against all pairs on Adult (194 million pairs; sampled)
    pos_rows = np.flatnonzero(adult.y == 1)
    t_closed, value = timed(distcnt, A, adult.y, S, repeat=3)
    sub = np.concatenate([pos_rows[:200], np.flatnonzero(adult.y == 0)])
    t_pairs, _ = timed(brute_distcnt, dense[sub], adult.y[sub] == 1)
    t_pairs *= pos_rows.size / 200
    print(
        f"DistCnt on Adult: closed form {t_closed * 1e3:.1f} ms ({value} pairs told apart); "
        f"all pairs (est.) {t_pairs:.1f} s; ratio {t_pairs / t_closed:.0f}x"
    )
    t_ham, _ = timed(hamdist, A, adult.y, S, repeat=3)
    print(
        f"HamDist on Adult: closed form {t_ham * 1e3:.1f} ms (pairwise costs as DistCnt above: "
        f"ratio {t_pairs / t_ham:.0f}x)"
    )

    # maximal itemset miners on the same inputs
    h = feature_hamdist(P, y)
    top = np.sort(np.argsort(-h, kind="stable")[:20])
    for name, X in (("Adult, k = 5", A), ("PU1 top-20 HamDist tokens, k = 5", P[:, top])):
        t_fim, a = timed(maximal_itemsets, X, 5, miner="pyfim")
        t_mlx, b = timed(maximal_itemsets, X, 5, miner="mlxtend")
        print(
            f"maximal itemsets, {name}: pyfim {t_fim:.3f} s, mlxtend {t_mlx:.3f} s ({len(a)} sets, "
            f"same: {a == b}); ratio {t_mlx / t_fim:.0f}x"
        )

    # Maximal's input: the largest itemsets held by k rows, over all PU1 tokens (exact search) against
    # intersecting every k-row subset (timed on a random sample of subsets and extrapolated)
    dense_pu1 = P.toarray().astype(bool)
    rng = np.random.default_rng(0)
    for k in (5, 8, 11):
        t_exact, found = timed(largest_itemsets, P, k, 1)
        combos = [rng.choice(P.shape[0], k, replace=False) for _ in range(2000)]
        t_sample, _ = timed(brute_largest_itemset_size, dense_pu1, combos)
        t_all = t_sample / len(combos) * comb(P.shape[0], k)
        print(
            f"largest itemsets held by {k} PU1 rows ({P.shape[1]} tokens): exact search {t_exact:.2f} s, "
            f"{len(found[0]) if found else 0} tokens; every {k}-row subset (est.) {t_all:.2e} s; "
            f"ratio {t_all / t_exact:.1e}x"
        )
    bench_maximal_order(P)
    bench_dp_draws(P, y)
    bench_rf_fits(P, y)
    bench_flipping((("Adult", A, adult.y), ("PU1", P, y)))


if __name__ == "__main__":
    if sys.argv[1:] == ["flip"]:
        adult, pu1 = load_adult(version="train", drop_missing=False), load_pu1(subject=False)
        A = check_binary(binarize_adult(adult.frame))
        bench_flipping((("Adult", A, adult.y), ("PU1", check_binary(pu1.X), pu1.y)))
    elif sys.argv[1:] == ["maximal"]:
        bench_maximal_order(check_binary(load_pu1(subject=False).X))
    elif sys.argv[1:] in (["dp"], ["rf"]):
        pu1 = load_pu1(subject=False)
        (bench_dp_draws if sys.argv[1] == "dp" else bench_rf_fits)(check_binary(pu1.X), pu1.y)
    else:
        main()
