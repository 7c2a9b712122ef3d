"""L-BFGS: a quasi-Newton method. It approximates the inverse Hessian from the last few steps
and gradients, so each step goes where a second-order method would, without ever forming a
matrix. Each step() runs up to max_iter iterations and re-evaluates the loss itself, which is
why it takes a closure:

    opt = optim.LBFGS(model.parameters(), line_search_fn="strong_wolfe")
    def closure():
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        return loss
    opt.step(closure)

All parameters are handled as one flat vector x (gradient g). With s_i = x_{i+1} - x_i and
y_i = g_{i+1} - g_i the last history_size differences (kept only while y.s > 1e-10), the
direction d = -H g comes from the "two-loop recursion":

    q = -g
    for i newest .. oldest:   a_i = rho_i * s_i.q;   q = q - a_i * y_i      (rho_i = 1 / y_i.s_i)
    r = H_diag * q                                                           (H_diag = y.s / y.y)
    for i oldest .. newest:   b_i = rho_i * y_i.r;   r = r + (a_i - b_i) * s_i
    d = r

then x = x + t * d, with t = lr (the first iteration: min(1, 1 / |g|_1) * lr), or the t a
strong-Wolfe line search finds. The scalars are 0-d tensors where PyTorch's are, so results
round as PyTorch's do.
"""
from __future__ import annotations

from .._ops.join import cat
from .._tensor import Tensor
from ..autograd.grad_mode import enable_grad, no_grad
from .optimizer import Optimizer


class LBFGS(Optimizer):
    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7, tolerance_change=1e-9,
                 history_size=100, line_search_fn=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_eval, tolerance_grad=tolerance_grad,
                        tolerance_change=tolerance_change, history_size=history_size, line_search_fn=line_search_fn)
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    # ---- the parameters as one flat vector ----------------------------------------------------
    def _gather_flat_grad(self):
        """All gradients as one new vector (zeros for a parameter without one)."""
        return cat([p.new(p.numel()).zero_() if p.grad is None else p.grad.view(-1) for p in self._params], 0)

    def _add_grad(self, step_size, update):
        """x = x + step_size * update, each parameter taking its slice of the flat update."""
        offset = 0
        for p in self._params:
            p.add_(update[offset:offset + p.numel()].view_as(p), alpha=step_size)
            offset += p.numel()

    def _directional_evaluate(self, closure, x, t, d):
        """The loss and flat gradient at x + t * d; the parameters are put back to x after."""
        self._add_grad(t, d)
        loss = _to_float(closure())
        flat_grad = self._gather_flat_grad()
        for p, saved in zip(self._params, x):
            p.copy_(saved)
        return loss, flat_grad

    # ---- one step: up to max_iter iterations --------------------------------------------------
    def step(self, closure):
        """Minimise closure()'s loss for up to max_iter iterations; returns its first loss."""
        with no_grad():
            return self._step(closure)

    def _step(self, closure):
        group = self.param_groups[0]
        lr = group["lr"].squeeze() if isinstance(group["lr"], Tensor) else group["lr"]
        max_iter, max_eval, history_size = group["max_iter"], group["max_eval"], group["history_size"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn = group["line_search_fn"]

        def evaluate():  # the closure always runs with gradients on, as the loss needs them
            with enable_grad():
                return closure()

        # The state is global, but it is kept under the first parameter, so that state_dict()
        # and load_state_dict() treat it like any optimizer's.
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        orig_loss = evaluate()
        loss = _to_float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        if flat_grad.abs().max() <= tolerance_grad:  # already at a minimum
            return orig_loss

        # what the last step() left (None on the first)
        d, t = state.get("d"), state.get("t")
        old_dirs, old_stps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        H_diag, prev_flat_grad, prev_loss = state.get("H_diag"), state.get("prev_flat_grad"), state.get("prev_loss")

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1

            # -- the direction d --
            if state["n_iter"] == 1:  # no history yet: steepest descent
                d = flat_grad.neg()
                old_dirs, old_stps, ro = [], [], []
                H_diag = 1
            else:
                y = flat_grad.sub(prev_flat_grad)
                s = d.mul(t)
                ys = y.dot(s)
                if ys > 1e-10:  # only a pair with positive curvature keeps H positive definite
                    if len(old_dirs) == history_size:  # forget the oldest pair
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    H_diag = ys / y.dot(y)
                if "al" not in state:
                    state["al"] = [None] * history_size
                d = _two_loop_direction(flat_grad, old_dirs, old_stps, ro, H_diag, state["al"])

            if prev_flat_grad is None:
                prev_flat_grad = flat_grad.clone()
            else:
                prev_flat_grad.copy_(flat_grad)
            prev_loss = loss

            # -- the step length t --
            t = min(1.0, 1.0 / flat_grad.abs().sum()) * lr if state["n_iter"] == 1 else lr
            gtd = flat_grad.dot(d)  # the slope of the loss along d
            if gtd > -tolerance_change:  # d no longer goes downhill
                break

            ls_func_evals = 0
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = [p.clone() for p in self._params]

                def obj_func(x, t, d):
                    return self._directional_evaluate(evaluate, x, t, d)

                loss, flat_grad, t, ls_func_evals = _strong_wolfe(obj_func, x_init, t, d, loss, flat_grad, gtd,
                                                                  max_ls=max_eval - current_evals)
                self._add_grad(t, d)
                opt_cond = flat_grad.abs().max() <= tolerance_grad
            else:
                self._add_grad(t, d)  # a fixed step
                if n_iter != max_iter:  # the last iteration's loss would not be used
                    loss = _to_float(evaluate())
                    flat_grad = self._gather_flat_grad()
                    opt_cond = flat_grad.abs().max() <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals

            # -- stop? --
            if n_iter == max_iter or current_evals >= max_eval:
                break
            if opt_cond:  # the gradient is (nearly) zero
                break
            if d.mul(t).abs().max() <= tolerance_change or abs(loss - prev_loss) < tolerance_change:
                break  # no more progress

        state.update(d=d, t=t, old_dirs=old_dirs, old_stps=old_stps, ro=ro, H_diag=H_diag,
                     prev_flat_grad=prev_flat_grad, prev_loss=prev_loss)
        return orig_loss


def _two_loop_direction(g, old_dirs, old_stps, ro, H_diag, al):
    """d = -H g, H the inverse Hessian estimate from the pairs (s_i, y_i) = (old_stps[i],
    old_dirs[i]), oldest first; al: the buffer for the a_i (it stays in the state)."""
    q = g.neg()
    for i in range(len(old_dirs) - 1, -1, -1):
        al[i] = old_stps[i].dot(q) * ro[i]
        q.add_(old_dirs[i], alpha=-al[i])
    r = q.mul(H_diag)
    for i in range(len(old_dirs)):
        be_i = old_dirs[i].dot(r) * ro[i]
        r.add_(old_stps[i], alpha=al[i] - be_i)
    return r


def _to_float(loss):
    """The closure's loss (a tensor, or already a number) as a Python float."""
    return loss.item() if isinstance(loss, Tensor) else float(loss)


# ---- the strong-Wolfe line search --------------------------------------------------------------

def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimiser, within bounds (default: between x1 and x2), of the cubic through two points
    with values f1, f2 and slopes g1, g2; the middle of the bounds if the cubic has none."""
    xmin_bound, xmax_bound = bounds if bounds is not None else ((x1, x2) if x1 <= x2 else (x2, x1))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square >= 0:
        d2 = d2_square.sqrt()
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(min_pos, xmin_bound), xmax_bound)
    return (xmin_bound + xmax_bound) / 2.0


def _strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """A step t along d that satisfies the strong Wolfe conditions:

        f(x + t d) <= f(x) + c1 t g.d        (enough decrease: "Armijo")
        |g(x + t d).d| <= c2 |g.d|           (the slope has flattened enough)

    First a bracket [t_lo, t_hi] that contains such a t is found by growing t; then the bracket
    is shrunk by cubic interpolation ("zoom"). Returns (loss, flat gradient, t, evaluations)."""
    d_norm = d.abs().max()
    g = g.clone()
    f_new, g_new = obj_func(x, t, d)
    ls_func_evals = 1
    gtd_new = g_new.dot(d)

    # -- bracketing --
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    ls_iter = 0
    while ls_iter < max_ls:
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):  # went past a minimum
            bracket, bracket_f, bracket_g = [t_prev, t], [f_prev, f_new], [g_prev, g_new.clone()]
            bracket_gtd = [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:  # t itself satisfies both conditions
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:  # the slope turned uphill: a minimum lies between
            bracket, bracket_f, bracket_g = [t_prev, t], [f_prev, f_new], [g_prev, g_new.clone()]
            bracket_gtd = [gtd_prev, gtd_new]
            break
        # still going downhill: extrapolate a longer step, between 1.01 t and 10 t
        min_step, max_step = t + 0.01 * (t - t_prev), t * 10
        tmp = t
        t = _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(min_step, max_step))
        t_prev, f_prev, g_prev, gtd_prev = tmp, f_new, g_new.clone(), gtd_new
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
    if ls_iter == max_ls:  # out of evaluations: bracket from 0
        bracket, bracket_f, bracket_g = [0, t], [f, f_new], [g, g_new]

    # -- zoom --
    insuf_progress = False
    low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:  # the bracket is too small
            break
        t = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1])
        # A t too close to an end of the bracket makes little progress: after twice, or if it is
        # outside, move it to 10% of the bracket's length inside.
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - t, t - min(bracket)) < eps:
            if insuf_progress or t >= max(bracket) or t <= min(bracket):
                t = max(bracket) - eps if abs(t - max(bracket)) < abs(t - min(bracket)) else min(bracket) + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False

        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
        if f_new > (f + c1 * t * gtd) or f_new >= bracket_f[low_pos]:
            # not enough decrease: t is the new high end
            bracket[high_pos], bracket_f[high_pos] = t, f_new
            bracket_g[high_pos], bracket_gtd[high_pos] = g_new.clone(), gtd_new
            low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0:
                # the minimum is on the other side of t: the old low end becomes the high one
                bracket[high_pos], bracket_f[high_pos] = bracket[low_pos], bracket_f[low_pos]
                bracket_g[high_pos], bracket_gtd[high_pos] = bracket_g[low_pos], bracket_gtd[low_pos]
            bracket[low_pos], bracket_f[low_pos] = t, f_new
            bracket_g[low_pos], bracket_gtd[low_pos] = g_new.clone(), gtd_new

    return bracket_f[low_pos], bracket_g[low_pos], bracket[low_pos], ls_func_evals
