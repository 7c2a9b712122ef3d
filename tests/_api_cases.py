"""Gradient-check cases for the wider API (special math, ordering, scatter, shape ops, fused
products, statistics). test_autograd_gradcheck.py appends them to its CASES, so each runs
through gradcheck (contiguous and non-contiguous inputs), gradgradcheck, and, in
test_autograd_torch.py, against PyTorch's values, gradients and Hessian-vector products.

Every function here runs unchanged on minitorch and on PyTorch (`L` is the library). A case
is (name, fn, shapes, options): the arguments of test_autograd_gradcheck.Case.
"""
from __future__ import annotations


def Case(name, fn, *shapes, **options):  # noqa: N802 (reads like the Case it becomes)
    return name, fn, shapes, options


def _i(L, *v):
    return L.tensor(list(v), dtype=L.int64)


def _idx(L, rows):
    return L.tensor(rows, dtype=L.int64)


def _mask(L, rows):
    return L.tensor(rows, dtype=L.bool)


def _inplace(name, *args, **kw):
    """An in-place method on a non-leaf: the rewritten history must differentiate like the op."""
    def fn(L, x, *rest):
        y = x * 1.0
        extra = [a(L) if callable(a) else a for a in args]
        getattr(y, name)(*rest, *extra, **kw)
        return y
    return fn


API_CASES = [
    # ---- special math ----
    Case("api_tan", lambda L, x: (x * 0.8).tan(), (2, 3)),
    Case("api_asin", lambda L, x: (x * 0.5).asin(), (2, 3)),
    Case("api_acos", lambda L, x: L.acos(x * 0.5), (2, 3)),
    Case("api_atan", lambda L, x: x.atan(), (2, 3)),
    Case("api_sinh", lambda L, x: x.sinh(), (2, 3)),
    Case("api_cosh", lambda L, x: L.cosh(x), (2, 3)),
    Case("api_asinh", lambda L, x: x.asinh(), (2, 3)),
    Case("api_acosh", lambda L, x: (x + 1.0).acosh(), (2, 3), domain="pos"),
    Case("api_atanh", lambda L, x: (x * 0.5).atanh(), (2, 3)),
    Case("api_log2", lambda L, x: x.log2(), (2, 3), domain="pos"),
    Case("api_log10", lambda L, x: L.log10(x), (2, 3), domain="pos"),
    Case("api_logaddexp", lambda L, x, y: L.logaddexp(x, y), (2, 3), (3,)),
    Case("api_logaddexp2", lambda L, x, y: x.logaddexp2(y), (2, 3), (2, 1)),
    Case("api_exp2", lambda L, x: x.exp2(), (2, 3)),
    Case("api_sinc", lambda L, x: x.sinc(), (2, 3)),
    Case("api_erf", lambda L, x: x.erf(), (2, 3)),
    Case("api_erfc", lambda L, x: L.erfc(x), (2, 3)),
    Case("api_erfinv", lambda L, x: (x * 0.5).erfinv(), (2, 3)),
    Case("api_lgamma", lambda L, x: x.lgamma(), (2, 3), domain="pos"),
    Case("api_digamma", lambda L, x: x.digamma(), (2, 3), domain="pos"),
    Case("api_polygamma", lambda L, x: L.polygamma(2, x), (2, 3), domain="pos"),
    Case("api_i0", lambda L, x: L.i0(x), (2, 3)),
    Case("api_i1", lambda L, x: L.special.i1(x * 2), (2, 3)),
    Case("api_deg2rad", lambda L, x: x.deg2rad(), (2, 3)),
    Case("api_rad2deg", lambda L, x: x.rad2deg() * 0.01, (2, 3)),
    Case("api_frac", lambda L, x: (x * 3.3).frac(), (2, 3)),
    Case("api_sgn", lambda L, x: x.sgn() * x, (2, 3)),
    Case("api_logit", lambda L, x: (x * 0.3 + 0.5).logit(), (2, 3)),
    Case("api_logit_eps", lambda L, x: L.logit(x * 0.3 + 0.5, eps=0.3), (2, 3)),
    Case("api_nan_to_num", lambda L, x: x.nan_to_num() * 2, (2, 3)),
    Case("api_atan2", lambda L, x, y: L.atan2(x, y), (2, 3), (3,)),
    Case("api_lerp_scalar", lambda L, x, y: L.lerp(x, y, 0.3), (2, 3), (2, 3)),
    Case("api_lerp_scalar_high", lambda L, x, y: x.lerp(y, 0.7), (2, 3), (3,)),
    Case("api_lerp_tensor", lambda L, x, y, w: L.lerp(x, y, w), (2, 3), (2, 3), (2, 1)),
    Case("api_addcmul", lambda L, x, y, z: L.addcmul(x, y, z, value=0.5), (2, 3), (3,), (2, 1)),
    Case("api_addcdiv", lambda L, x, y, z: x.addcdiv(y, z, value=-1.5), (2, 3), (2, 3), (3,),
         domain=("any", "any", "pos")),
    Case("api_float_power", lambda L, x, y: L.float_power(x, y), (2, 3), (3,), domain=("pos", "any")),
    Case("api_polygamma_inplace", _inplace("polygamma_", 1), (2, 3), domain="pos"),
    Case("api_clamp_min_inplace", _inplace("clamp_min_", 0.1), (3, 4)),
    Case("api_clamp_max_inplace", _inplace("clamp_max_", -0.1), (3, 4)),
    Case("api_atan2_inplace", _inplace("atan2_"), (2, 3), (3,)),
    Case("api_lerp_inplace", _inplace("lerp_", 0.25), (2, 3), (2, 3)),
    Case("api_erf_inplace", _inplace("erf_"), (2, 3)),
    # ---- shape ops ----
    Case("api_roll", lambda L, x: x.roll(1), (3, 4)),
    Case("api_roll_dims", lambda L, x: L.roll(x, (1, -1), (0, 1)), (3, 4)),
    Case("api_tril", lambda L, x: x.tril(), (3, 4)),
    Case("api_triu", lambda L, x: L.triu(x, 1), (2, 3, 4)),
    Case("api_diagonal", lambda L, x: x.diagonal(1), (3, 4)),
    Case("api_diagonal_dims", lambda L, x: L.diagonal(x, -1, 0, 2), (3, 2, 4)),
    Case("api_diag_embed", lambda L, x: L.diag_embed(x, 1), (2, 3)),
    Case("api_diag_1d", lambda L, x: L.diag(x), (3,)),
    Case("api_diag_2d", lambda L, x: x.diag(-1), (3, 4)),
    Case("api_trace", lambda L, x: x.trace(), (3, 4)),
    Case("api_unfold", lambda L, x: x.unfold(1, 2, 1), (3, 4)),
    Case("api_unfold_step", lambda L, x: x.unfold(0, 2, 2), (5, 2)),
    Case("api_repeat_interleave", lambda L, x: x.repeat_interleave(2, dim=0), (2, 3)),
    Case("api_repeat_interleave_counts", lambda L, x: x.repeat_interleave(_i(L, 2, 0, 1), dim=1), (2, 3)),
    Case("api_diff", lambda L, x: x.diff(), (3, 4)),
    Case("api_meshgrid", lambda L, x, y: L.meshgrid(x, y, indexing="xy"), (3,), (2,)),
    Case("api_broadcast_to", lambda L, x: L.broadcast_to(x, (2, 3, 4)), (3, 1)),
    Case("api_unsqueeze_inplace", _inplace("unsqueeze_", 1), (3, 4)),
    Case("api_squeeze_inplace", _inplace("squeeze_"), (3, 1, 4)),
    Case("api_squeeze_dim_inplace", _inplace("squeeze_", 1), (3, 1, 4)),
    Case("api_squeeze_dims_inplace", _inplace("squeeze_", (1,)), (3, 1, 4)),
    Case("api_transpose_inplace", _inplace("transpose_", 0, 1), (3, 4)),
    Case("api_as_strided_inplace", _inplace("as_strided_", (2, 3), (1, 2), 1), (3, 4)),
    # ---- ordering ----
    Case("api_sort", lambda L, x: x.sort(1), (3, 4)),
    Case("api_sort_stable_descending", lambda L, x: L.sort(x, dim=0, descending=True, stable=True)[0], (3, 4)),
    Case("api_topk", lambda L, x: x.topk(2)[0], (3, 4)),
    Case("api_kthvalue", lambda L, x: x.kthvalue(2, 0)[0], (3, 4)),
    Case("api_median", lambda L, x: x.median(), (3, 4)),
    Case("api_median_dim", lambda L, x: x.median(1)[0], (3, 4)),
    Case("api_nanmedian", lambda L, x: L.nanmedian(x), (3, 4)),
    Case("api_nanmedian_dim", lambda L, x: x.nanmedian(0, keepdim=True)[0], (3, 4)),
    Case("api_mode", lambda L, x: x.mode(1)[0], (3, 4)),
    # ---- index writes ----
    Case("api_scatter", lambda L, x, s: x.scatter(1, _idx(L, [[0, 1], [2, 3], [1, 0]]), s), (3, 4), (3, 2)),
    Case("api_scatter_value", lambda L, x: x.scatter(0, _idx(L, [[0, 2, 1, 0]]), 0.5), (3, 4)),
    Case("api_scatter_add", lambda L, x, s: L.scatter_add(x, 0, _idx(L, [[0, 0, 1, 2], [2, 0, 0, 0]]), s),
         (3, 4), (2, 4)),
    Case("api_scatter_reduce_sum", lambda L, x, s: x.scatter_reduce(1, _idx(L, [[0, 0], [1, 1]]), s, "sum",
                                                                    include_self=False), (2, 3), (2, 2)),
    Case("api_scatter_reduce_mean", lambda L, x, s: x.scatter_reduce(1, _idx(L, [[0, 0], [2, 1]]), s, "mean"),
         (2, 3), (2, 2)),
    Case("api_scatter_reduce_amax", lambda L, x, s: x.scatter_reduce(1, _idx(L, [[0, 0], [2, 1]]), s, "amax"),
         (2, 3), (2, 2)),
    Case("api_scatter_reduce_prod", lambda L, x, s: x.scatter_reduce(1, _idx(L, [[0, 0], [2, 1]]), s, "prod"),
         (2, 3), (2, 2)),
    Case("api_index_select", lambda L, x: L.index_select(x, 1, _i(L, 3, 0, 3)) * 1.0, (3, 4)),
    Case("api_repeat_interleave_index", lambda L, x: x.repeat_interleave(_i(L, 1, 2), dim=0), (2, 3)),
    Case("api_index_add", lambda L, x, s: x.index_add(0, _i(L, 0, 2, 0), s, alpha=1.5), (3, 4), (3, 4)),
    Case("api_index_reduce_prod", lambda L, x, s: x.index_reduce(0, _i(L, 0, 2, 0), s, "prod"), (3, 4), (3, 4)),
    Case("api_index_reduce_amax", lambda L, x, s: x.index_reduce(0, _i(L, 0, 2, 0), s, "amax", include_self=False),
         (3, 4), (3, 4)),
    Case("api_select_scatter", lambda L, x, s: L.select_scatter(x, s, 0, 1), (3, 4), (4,)),
    Case("api_slice_scatter", lambda L, x, s: L.slice_scatter(x, s, 1, 1, 3), (3, 4), (3, 2)),
    # (the source only: PyTorch's own gradient to the input of as_strided_scatter is wrong)
    Case("api_as_strided_scatter_src", lambda L, s: L.as_strided_scatter(L.zeros(6, dtype=L.float64), s, (2,), (2,), 1),
         (2,)),
    Case("api_index_fill", lambda L, x: x.index_fill(1, _i(L, 0, 2), -1.0), (3, 4)),
    Case("api_index_fill_tensor", lambda L, x, v: L.index_fill(x, 0, _i(L, 1, 1), v.sum()), (3, 4), (2,)),
    Case("api_index_copy", lambda L, x, s: x.index_copy(1, _i(L, 3, 0), s), (3, 4), (3, 2)),
    Case("api_index_put_accumulate", lambda L, x, v: x.index_put((_i(L, 0, 0, 2),), v, accumulate=True),
         (3, 4), (4,)),
    Case("api_masked_select", lambda L, x: x.masked_select(_mask(L, [True, False, True, True])), (3, 4)),
    Case("api_masked_scatter", lambda L, x, s: x.masked_scatter(_mask(L, [[True, False, True]]), s), (2, 3), (5,)),
    Case("api_take", lambda L, x: x.take(_idx(L, [[0, 5], [11, 5]])), (3, 4)),
    Case("api_put", lambda L, x, s: x.put(_i(L, 1, 4), s), (3, 4), (2,)),
    Case("api_put_accumulate", lambda L, x, s: L.put(x, _i(L, 1, 1), s, accumulate=True), (3, 4), (2,)),
    Case("api_take_along_dim", lambda L, x: L.take_along_dim(x, _idx(L, [[0], [3], [1]]), 1), (3, 4)),
    # ---- fused products, statistics, distances ----
    Case("api_addmm", lambda L, i, a, b: L.addmm(i, a, b, beta=0.5, alpha=2.0), (3,), (2, 4), (4, 3)),
    Case("api_addmm_inplace", _inplace("addmm_", beta=0.5), (2, 3), (2, 4), (4, 3)),
    Case("api_addmv", lambda L, i, m, v: L.addmv(i, m, v, alpha=-1.0), (3,), (3, 4), (4,)),
    Case("api_addr", lambda L, i, u, v: i.addr(u, v, beta=2.0), (3, 4), (3,), (4,)),
    Case("api_baddbmm", lambda L, i, a, b: L.baddbmm(i, a, b), (2, 3, 2), (2, 3, 4), (2, 4, 2)),
    Case("api_addbmm", lambda L, i, a, b: L.addbmm(i, a, b, alpha=0.5), (3, 2), (2, 3, 4), (2, 4, 2)),
    Case("api_std_mean", lambda L, x: L.std_mean(x, 1), (3, 4)),
    Case("api_var_mean", lambda L, x: L.var_mean(x, (0, 1), keepdim=True, correction=0), (3, 4)),
    Case("api_dist", lambda L, x, y: L.dist(x, y), (3, 4), (4,)),
    Case("api_dist_p3", lambda L, x, y: x.dist(y, 3), (3, 4), (3, 4)),
    Case("api_cdist", lambda L, x, y: L.cdist(x, y), (3, 4), (2, 4)),
    Case("api_cdist_p1_batched", lambda L, x, y: L.cdist(x, y, p=1.0), (2, 3, 2), (2, 2)),
    Case("api_einsum", lambda L, x, y: L.einsum("bij,jk->bki", x, y), (2, 3, 4), (4, 2)),
    # ---- the smaller functions (minitorch/_ops/more.py) and torch.linalg ----
    Case("api_hypot", lambda L, x, y: L.hypot(x, y), (2, 3), (3,)),
    Case("api_xlogy", lambda L, x, y: L.xlogy(x, y), (2, 3), (3,), domain=("any", "pos")),
    Case("api_xlogy_number_first", lambda L, y: L.xlogy(2.0, y), (2, 3), domain="pos"),
    Case("api_xlogy_number_second", lambda L, x: L.xlogy(x, 3.0), (2, 3)),
    Case("api_xlog1py", lambda L, x, y: L.special.xlog1py(x, y), (2, 3), (3,), domain=("any", "pos")),
    Case("api_xlog1py_number_first", lambda L, y: L.special.xlog1py(2.0, y), (2, 3), domain="pos"),
    Case("api_xlog1py_number_second", lambda L, x: L.special.xlog1py(x, 3.0), (2, 3)),
    Case("api_entr", lambda L, x: L.special.entr(x), (2, 3), domain="pos"),
    Case("api_ndtr", lambda L, x: L.special.ndtr(x), (2, 3)),
    Case("api_ndtri", lambda L, x: L.special.ndtri(x.sigmoid()), (2, 3)),
    Case("api_i0e", lambda L, x: L.special.i0e(x * 3.0), (2, 3)),
    Case("api_i1e", lambda L, x: L.special.i1e(x * 3.0), (2, 3)),
    Case("api_erfcx", lambda L, x: L.special.erfcx(x * 2.0), (2, 3)),
    Case("api_log_ndtr", lambda L, x: L.special.log_ndtr(x * 3.0), (2, 3)),
    # (igamma / igammac / zeta: PyTorch differentiates in the second argument only)
    Case("api_igamma", lambda L, x: L.igamma(L.tensor([0.5, 1.5, 2.5], dtype=L.float64), x), (2, 3), domain="pos"),
    Case("api_igammac", lambda L, x: L.igammac(L.tensor([0.5, 1.5, 2.5], dtype=L.float64), x), (2, 3),
         domain="pos"),
    Case("api_mvlgamma", lambda L, x: L.mvlgamma(x + 2.0, 2), (2, 3), domain="pos"),
    Case("api_zeta", lambda L, q: L.special.zeta(L.tensor([2.5, 3.0, 4.0], dtype=L.float64), q), (2, 3),
         domain="pos"),
    Case("api_zeta_number_first", lambda L, q: L.special.zeta(3.0, q), (2, 3), domain="pos"),
    Case("api_ldexp", lambda L, x, y: L.ldexp(x, y), (2, 3), (3,)),
    Case("api_nextafter", lambda L, x, y: L.nextafter(x, y), (2, 3), (3,)),
    Case("api_copysign", lambda L, x, y: L.copysign(x, y), (2, 3), (3,)),
    Case("api_copysign_number", lambda L, x: L.copysign(x, -1.0), (2, 3)),
    Case("api_fmax", lambda L, x, y: L.fmax(x, y), (2, 3), (3,)),
    Case("api_fmin", lambda L, x, y: L.fmin(x, y), (2, 3), (2, 3)),
    Case("api_nansum", lambda L, x: x.nansum(1, keepdim=True), (2, 3)),
    Case("api_aminmax", lambda L, x: (lambda r: r.min * 2 + r.max)(L.aminmax(x, dim=1)), (2, 3)),
    Case("api_cummax", lambda L, x: x.cummax(1).values, (2, 4)),
    Case("api_cummin", lambda L, x: L.cummin(x, 0)[0], (3, 2)),
    Case("api_logcumsumexp", lambda L, x: L.logcumsumexp(x, 1), (2, 4)),
    Case("api_kron", lambda L, x, y: L.kron(x, y), (2, 3), (2, 2)),
    Case("api_cross", lambda L, x, y: L.cross(x, y, dim=1), (2, 3), (2, 3)),
    Case("api_rot90", lambda L, x: L.rot90(x, 1, (0, 1)), (2, 3)),
    Case("api_vdot", lambda L, x, y: L.vdot(x, y), (4,), (4,)),
    Case("api_rsub_tensor", lambda L, x, y: L.rsub(x, y), (2, 3), (3,)),
    Case("api_clamp_min_tensor", lambda L, x, y: x.clamp_min(y), (2, 3), (3,)),
    Case("api_clamp_max_tensor", lambda L, x, y: L.clamp_max(x, y), (2, 3), (2, 3)),
    Case("api_masked_fill_tensor", lambda L, x, v: x.masked_fill(_mask(L, [[True, False, True], [False, False, True]]),
                                                                   v), (2, 3), ()),
    Case("api_reshape_copy", lambda L, x: x.t().reshape(-1), (2, 3)),
    Case("api_linalg_inv", lambda L, x: L.linalg.inv(x + 3 * L.eye(3, dtype=x.dtype)), (3, 3)),
    Case("api_linalg_det", lambda L, x: L.linalg.det(x + 2 * L.eye(3, dtype=x.dtype)), (2, 3, 3)),
    Case("api_linalg_solve", lambda L, a, b: L.linalg.solve(a + 3 * L.eye(3, dtype=a.dtype), b), (3, 3), (3, 2)),
    Case("api_linalg_solve_vector_right", lambda L, a, b: L.linalg.solve(a + 3 * L.eye(3, dtype=a.dtype), b,
                                                                         left=False), (3, 3), (2, 3)),
    Case("api_linalg_svdvals", lambda L, x: L.linalg.svdvals(x), (3, 2), eps=2e-6),  # (no second derivative)
    Case("api_linalg_matrix_norm_nuc", lambda L, x: L.linalg.matrix_norm(x, "nuc"), (3, 3), eps=2e-6),
]

API_COVERAGE = {
    "Tan": ["api_tan"], "Asin": ["api_asin"], "Acos": ["api_acos"], "Atan": ["api_atan"], "Sinh": ["api_sinh"],
    "Cosh": ["api_cosh"], "Asinh": ["api_asinh"], "Acosh": ["api_acosh"], "Atanh": ["api_atanh"],
    "Log2": ["api_log2"], "Log10": ["api_log10"], "LogAddExp": ["api_logaddexp"], "LogAddExp2": ["api_logaddexp2"], "Exp2": ["api_exp2"], "Sinc": ["api_sinc"], "Erf": ["api_erf"],
    "Erfc": ["api_erfc"], "Erfinv": ["api_erfinv"], "Lgamma": ["api_lgamma"], "Digamma": ["api_digamma"],
    "Polygamma": ["api_polygamma"], "I0": ["api_i0"], "I1": ["api_i1"], "PolygammaInplace": ["api_polygamma_inplace"], "Deg2Rad": ["api_deg2rad"],
    "Rad2Deg": ["api_rad2deg"], "Frac": ["api_frac"], "Sgn": ["api_sgn"], "Logit": ["api_logit", "api_logit_eps"],
    "NanToNum": ["api_nan_to_num"], "Atan2": ["api_atan2"], "Lerp": ["api_lerp_tensor"],
    "LerpScalar": ["api_lerp_scalar", "api_lerp_scalar_high"], "Addcmul": ["api_addcmul"],
    "Addcdiv": ["api_addcdiv"], "ClampMin": ["api_clamp_min_inplace"], "ClampMax": ["api_clamp_max_inplace"],
    "Roll": ["api_roll", "api_roll_dims"], "Tril": ["api_tril"], "Triu": ["api_triu"],
    "Diagonal": ["api_diagonal", "api_diagonal_dims"], "DiagonalScatter": ["api_diag_embed", "api_diag_1d"],
    "DiagonalCopy": ["api_diag_2d"], "Trace": ["api_trace"], "Unfold": ["api_unfold", "api_unfold_step"],
    "UnfoldSum": ["api_unfold"],  # unfold's backward: covered by the second-derivative check
    "UnsqueezeInplace": ["api_unsqueeze_inplace"], "SqueezeInplace": ["api_squeeze_inplace"],
    "SqueezeDimInplace": ["api_squeeze_dim_inplace"], "SqueezeDimsInplace": ["api_squeeze_dims_inplace"],
    "TransposeInplace": ["api_transpose_inplace"], "AsStridedInplace": ["api_as_strided_inplace"],
    "Sort": ["api_sort"], "SortStable": ["api_sort_stable_descending"], "Topk": ["api_topk"],
    "Kthvalue": ["api_kthvalue"], "MedianAll": ["api_median"], "MedianDim": ["api_median_dim"],
    "NanmedianAll": ["api_nanmedian"], "NanmedianDim": ["api_nanmedian_dim"], "Mode": ["api_mode"],
    # unique's backward is not defined (PyTorch: "the derivative for '_unique2' is not implemented")
    "Unique": [],
    "Scatter": ["api_scatter"], "ScatterValue": ["api_scatter_value", "api_scatter"],
    "ScatterAdd": ["api_scatter_add"],
    "ScatterReduce": ["api_scatter_reduce_sum", "api_scatter_reduce_mean", "api_scatter_reduce_amax",
                      "api_scatter_reduce_prod"],
    "IndexSelect": ["api_index_select", "api_repeat_interleave_index"], "IndexAddInto": ["api_index_select"],
    "IndexAdd": ["api_index_add"], "IndexFill": ["api_index_fill"], "IndexFillTensor": ["api_index_fill_tensor"],
    "IndexCopy": ["api_index_copy"], "IndexPutAccumulate": ["api_index_put_accumulate"],
    "MaskedSelect": ["api_masked_select"], "MaskedScatter": ["api_masked_scatter"], "Take": ["api_take"],
    "Put": ["api_put", "api_put_accumulate"],
    "Addmm": ["api_addmm", "api_addmm_inplace"], "Addmv": ["api_addmv"], "Addr": ["api_addr"],
    "Baddbmm": ["api_baddbmm"], "Addbmm": ["api_addbmm"], "VarMean": ["api_var_mean"], "StdMean": ["api_std_mean"],
    "Dist": ["api_dist", "api_dist_p3"], "Cdist": ["api_cdist", "api_cdist_p1_batched"],
    "Hypot": ["api_hypot"], "Xlog1py": ["api_xlog1py"], "Xlog1pyScalarSelf": ["api_xlog1py_number_first"],
    "Xlog1pyScalarOther": ["api_xlog1py_number_second"], "Entr": ["api_entr"], "Ndtri": ["api_ndtri"],
    "Ldexp": ["api_ldexp"], "Nextafter": ["api_nextafter"], "Xlogy": ["api_xlogy"], "XlogyScalarSelf": ["api_xlogy_number_first"],
    "XlogyScalarOther": ["api_xlogy_number_second"], "Copysign": ["api_copysign"],
    "CopysignScalar": ["api_copysign_number"], "Fmax": ["api_fmax"], "Fmin": ["api_fmin"], "NanSum": ["api_nansum"],
    "AMinMax": ["api_aminmax"], "CumMax": ["api_cummax"], "CumMin": ["api_cummin"],
    "LogCumSumExp": ["api_logcumsumexp"], "Kron": ["api_kron"], "Cross": ["api_cross"], "Rot90": ["api_rot90"],
    "Vdot": ["api_vdot"], "RsubTensor": ["api_rsub_tensor"], "ClampMinTensor": ["api_clamp_min_tensor"],
    "ClampMaxTensor": ["api_clamp_max_tensor"], "MaskedFillTensor": ["api_masked_fill_tensor"],
    "UnsafeView": ["api_reshape_copy"],
    "I0e": ["api_i0e"], "I1e": ["api_i1e"], "Erfcx": ["api_erfcx"], "LogNdtr": ["api_log_ndtr"],
    "Igamma": ["api_igamma"], "Igammac": ["api_igammac"], "Mvlgamma": ["api_mvlgamma"], "Zeta": ["api_zeta"],
    "ZetaScalarSelf": ["api_zeta_number_first"], "SelectScatter": ["api_select_scatter"],
    "SliceScatter": ["api_slice_scatter"], "AsStridedScatter": ["api_as_strided_scatter_src"],
    "IndexReduce": ["api_index_reduce_prod", "api_index_reduce_amax"],
    # no derivative, as in PyTorch: their backward refuses (tests/test_torch_fidelity.py)
    "Heaviside": [], "RemainderOfNumber": [], "ZetaScalarOther": [],
}
