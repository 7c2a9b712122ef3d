# "Extending PyTorch" (torch.autograd.Function), "Double Backward with Custom Functions" and the
# functional half of "Forward-mode Automatic Differentiation": LinearFunction with the separate
# forward / setup_context style and ctx.needs_input_grad, gradcheck of it, MulConstant returning None
# for a non-tensor input, a LinearModule with extra_repr; Square / Exp / Sinh (saving outputs and
# intermediate results) through gradcheck and gradgradcheck, SinhBad failing gradgradcheck, MyCube
# returning its derivative; ctx.mark_dirty for an in-place Function, ctx.mark_non_differentiable for
# sort indices, ctx.set_materialize_grads(False) with None gradients, @once_differentiable and its
# double-backward error; torch.func.jvp / jacfwd / hessian on the tutorial's functions.
import torch
import torch.nn as nn
from torch.autograd import Function, gradcheck, gradgradcheck
from torch.autograd.function import once_differentiable


# Inherit from Function
class LinearFunction(Function):

    # Note that forward, setup_context, and backward are @staticmethods
    @staticmethod
    def forward(input, weight, bias=None):
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    # inputs is a Tuple of all of the inputs passed to forward.
    # output is the output of the forward().
    def setup_context(ctx, inputs, output):
        input, weight, bias = inputs
        ctx.save_for_backward(input, weight, bias)

    # This function has only a single output, so it gets only one gradient
    @staticmethod
    def backward(ctx, grad_output):
        # This is a pattern that is very convenient - at the top of backward
        # unpack saved_tensors and initialize all gradients w.r.t. inputs to
        # None. Thanks to the fact that additional trailing Nones are
        # ignored, the return statement is simple even when the function has
        # optional inputs.
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None

        # These needs_input_grad checks are optional and there only to
        # improve efficiency. If you want to make your code simpler, you can
        # skip them. Returning gradients for inputs that don't require it is
        # not an error.
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)

        return grad_input, grad_weight, grad_bias


linear = LinearFunction.apply
torch.manual_seed(0)
# gradcheck takes a tuple of tensors as input, check if your gradient
# evaluated with these tensors are close enough to numerical
# approximations and returns True if they all verify this condition.
input = (torch.randn(6, 5, dtype=torch.double, requires_grad=True),
         torch.randn(4, 5, dtype=torch.double, requires_grad=True))
test = gradcheck(linear, input, eps=1e-6, atol=1e-4)
print(test)
x, w, b = torch.randn(3, 5), torch.randn(4, 5, requires_grad=True), torch.randn(4, requires_grad=True)
out = linear(x, w, b)
print(out.grad_fn, type(out.grad_fn).__name__, out.grad_fn.next_functions)
out.sum().backward()
print(w.grad.shape, b.grad)
print(gradcheck(linear, (input[0], input[1], torch.randn(4, dtype=torch.double, requires_grad=True))))


class MulConstant(Function):
    @staticmethod
    def forward(tensor, constant):
        return tensor * constant

    @staticmethod
    def setup_context(ctx, inputs, output):
        # ctx is a context object that can be used to stash information
        # for backward computation
        tensor, constant = inputs
        ctx.constant = constant

    @staticmethod
    def backward(ctx, grad_output):
        # We return as many input gradients as there were arguments.
        # Gradients of non-Tensor arguments to forward must be None.
        return grad_output * ctx.constant, None


a = torch.tensor([1.0, 2.0], requires_grad=True)
y = MulConstant.apply(a, 3.0)
y.sum().backward()
print(y, a.grad)


class LinearModule(nn.Module):
    def __init__(self, input_features, output_features, bias=True):
        super().__init__()
        self.input_features = input_features
        self.output_features = output_features

        # nn.Parameter is a special kind of Tensor, that will get
        # automatically registered as Module's parameter once it's assigned
        # as an attribute. Parameters and buffers need to be registered, or
        # they won't appear in .parameters() (doesn't apply to buffers), and
        # won't be converted when e.g. .cuda() is called. You can use
        # .register_buffer() to register buffers.
        # nn.Parameters require gradients by default.
        self.weight = nn.Parameter(torch.empty(output_features, input_features))
        if bias:
            self.bias = nn.Parameter(torch.empty(output_features))
        else:
            # You should always register all possible parameters, but the
            # optional ones can be None if you want.
            self.register_parameter('bias', None)

        # Not a very smart way to initialize weights
        nn.init.uniform_(self.weight, -0.1, 0.1)
        if self.bias is not None:
            nn.init.uniform_(self.bias, -0.1, 0.1)

    def forward(self, input):
        # See the autograd section for explanation of what happens here.
        return LinearFunction.apply(input, self.weight, self.bias)

    def extra_repr(self):
        # (Optional)Set the extra information about this module. You can test
        # it by printing an object of this class.
        return 'input_features={}, output_features={}, bias={}'.format(
            self.input_features, self.output_features, self.bias is not None
        )


m = LinearModule(5, 3)
print(m, [n for n, _ in m.named_parameters()])
print(LinearModule(5, 3, bias=False), m(torch.randn(2, 5)).shape)


# ---- double backward with custom functions --------------------------------------------------------
class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        # Because we are saving one of the inputs use `save_for_backward`
        # Save non-tensors and non-inputs/non-outputs directly on ctx
        ctx.save_for_backward(x)
        return x**2

    @staticmethod
    def backward(ctx, grad_out):
        # A function support double backward automatically if autograd
        # is able to record the computations performed in backward
        x, = ctx.saved_tensors
        return grad_out * 2 * x


# Use double precision because finite differencing method magnifies errors
x = torch.rand(3, 3, requires_grad=True, dtype=torch.double)
print(torch.autograd.gradcheck(Square.apply, x), torch.autograd.gradgradcheck(Square.apply, x))
out = Square.apply(x)
grad_x, = torch.autograd.grad(out.sum(), x, create_graph=True)
print(grad_x.grad_fn, torch.equal(grad_x, 2 * x))
grad_x.sum().backward()
print(x.grad)


class Exp(torch.autograd.Function):
    # Simple case where everything goes well
    @staticmethod
    def forward(ctx, x):
        # This time we save the output
        result = torch.exp(x)
        # Note that we should use `save_for_backward` here when
        # the tensor saved is an ouptut (or an input).
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_out):
        result, = ctx.saved_tensors
        return result * grad_out


x = torch.tensor(1., requires_grad=True, dtype=torch.double).clone()
# Validate our gradients using gradcheck
print(torch.autograd.gradcheck(Exp.apply, x), torch.autograd.gradgradcheck(Exp.apply, x))


class Sinh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        expx = torch.exp(x)
        expnegx = torch.exp(-x)
        ctx.save_for_backward(expx, expnegx)
        # In order to be able to save the intermediate results, a trick is to
        # include them as our outputs, so that the backward graph is constructed
        return (expx - expnegx) / 2, expx, expnegx

    @staticmethod
    def backward(ctx, grad_out, _grad_out_exp, _grad_out_negexp):
        expx, expnegx = ctx.saved_tensors
        grad_input = grad_out * (expx + expnegx) / 2
        # We cannot skip accumulating these even though we won't use the outputs
        # directly. They will be used later in the second backward.
        grad_input += _grad_out_exp * expx
        grad_input -= _grad_out_negexp * expnegx
        return grad_input


def sinh(x):
    # Create a wrapper that only returns the first output
    return Sinh.apply(x)[0]


x = torch.rand(3, 3, requires_grad=True, dtype=torch.double)
print(torch.autograd.gradcheck(sinh, x), torch.autograd.gradgradcheck(sinh, x))
outs = Sinh.apply(x)
print(len(outs), [o.grad_fn.__class__.__name__ for o in outs], outs[1].grad_fn is outs[2].grad_fn)


class SinhBad(torch.autograd.Function):
    # This is an example of what NOT to do!
    @staticmethod
    def forward(ctx, x):
        expx = torch.exp(x)
        expnegx = torch.exp(-x)
        ctx.expx = expx
        ctx.expnegx = expnegx
        return (expx - expnegx) / 2

    @staticmethod
    def backward(ctx, grad_out):
        expx = ctx.expx
        expnegx = ctx.expnegx
        grad_input = grad_out * (expx + expnegx) / 2
        return grad_input


print(torch.autograd.gradcheck(SinhBad.apply, x))
try:
    torch.autograd.gradgradcheck(SinhBad.apply, x)
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])
print(torch.autograd.gradgradcheck(SinhBad.apply, x, raise_exception=False))


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(x):
        result = x ** 3
        # In regular Python, we would do:
        # result = x ** 3 and then call to dx = 3 * x ** 2
        dx = 3 * x ** 2
        return result, dx

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, = inputs
        result, dx = output
        ctx.save_for_backward(x, dx)

    @staticmethod
    def backward(ctx, grad_output, grad_dx):
        x, dx = ctx.saved_tensors
        # In order for the autograd.Function to work with higher-order
        # gradients, we must add the gradient contribution of `dx`,
        # which is grad_dx * 6 * x.
        result = grad_output * dx + grad_dx * 6 * x
        return result


# Wrap MyCube in a function so that it is clearer what the output is
def my_cube(x):
    result, dx = Cube.apply(x)
    return result


x = torch.rand(3, 3, requires_grad=True, dtype=torch.double)
print(torch.autograd.gradcheck(my_cube, x), torch.autograd.gradgradcheck(my_cube, x))
x = torch.tensor(2.0, requires_grad=True)
g, = torch.autograd.grad(my_cube(x), x, create_graph=True)
gg, = torch.autograd.grad(g, x)
print(g, gg)


# ---- ctx.mark_dirty, mark_non_differentiable, set_materialize_grads, once_differentiable -------------
class AddOneInplace(Function):
    @staticmethod
    def forward(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output


a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a.clone()
v = b._version
c = AddOneInplace.apply(b)
print(c is b, b._version > v, b.grad_fn.__class__.__name__, c)
(c * c).sum().backward()
print(a.grad)
try:
    AddOneInplace.apply(torch.ones(2, requires_grad=True))
except RuntimeError as e:
    print(e)


class NoDirty(Function):
    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        return x

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output


try:
    r = NoDirty.apply(torch.ones(2, requires_grad=True).clone())
    print(r)
except RuntimeError as e:
    print(e)


class SortFunc(Function):
    @staticmethod
    def forward(ctx, x):
        sorted, idx = x.sort()
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(x, idx)
        return sorted, idx

    @staticmethod
    @once_differentiable
    def backward(ctx, g1, g2):  # still need to accept g2
        x, idx = ctx.saved_tensors
        grad_input = torch.zeros_like(x)
        grad_input.index_add_(0, idx, g1)
        return grad_input


x = torch.tensor([3.0, 1.0, 2.0], requires_grad=True)
s, idx = SortFunc.apply(x)
print(s, idx, idx.requires_grad, s.requires_grad)
(s * torch.tensor([1.0, 10.0, 100.0])).sum().backward()
print(x.grad)
s, idx = SortFunc.apply(x)
g, = torch.autograd.grad((s * s).sum(), x, create_graph=True)
print(g.requires_grad, g.grad_fn)
try:
    g.sum().backward()
except RuntimeError as e:
    print(e)


class SimpleFunc(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(x)
        return x.clone(), x.clone()

    @staticmethod
    @once_differentiable
    def backward(ctx, g1, g2):
        x, = ctx.saved_tensors
        print("grads given:", g1 is None, g2 is None)
        grad_input = torch.zeros_like(x)
        if g1 is not None:  # We must check for None now
            grad_input += g1
        if g2 is not None:
            grad_input += g2
        return grad_input


a = torch.tensor(1., requires_grad=True)
b, _ = SimpleFunc.apply(a)
b.backward()  # G2 will be None here
print(a.grad)


class Materialized(Function):
    @staticmethod
    def forward(ctx, x):
        return x.clone(), x.clone()

    @staticmethod
    def backward(ctx, g1, g2):
        print("materialized:", g1, g2)
        return g1 + g2


b, _ = Materialized.apply(torch.tensor([1., 2.], requires_grad=True))
b.sum().backward()


class WrongCount(Function):
    @staticmethod
    def forward(ctx, x, y):
        return x * y

    @staticmethod
    def backward(ctx, grad):
        return grad


try:
    WrongCount.apply(torch.ones(2, requires_grad=True), torch.ones(2)).sum().backward()
except RuntimeError as e:
    print(e)


class WrongShape(Function):
    @staticmethod
    def forward(ctx, x):
        return x.sum()

    @staticmethod
    def backward(ctx, grad):
        return torch.ones(3)


try:
    WrongShape.apply(torch.ones(2, requires_grad=True)).backward()
except RuntimeError as e:
    print(e)

# ---- forward-mode AD, the torch.func way ------------------------------------------------------------
from torch.func import hessian, jacfwd, jacrev, jvp


def fn(x, y):
    return x ** 2 + y ** 2


torch.manual_seed(0)
primal = torch.randn(3)
tangent = torch.randn(3)
plain = torch.randn(3)
out, jvp_out = jvp(lambda x: fn(x, plain), (primal,), (tangent,))
print(torch.allclose(out, fn(primal, plain)), torch.allclose(jvp_out, 2 * primal * tangent))
print(torch.allclose(jacfwd(torch.sin)(primal), torch.diag(torch.cos(primal))))
print(torch.allclose(jacfwd(torch.sin)(primal), jacrev(torch.sin)(primal)))
print(hessian(lambda x: (x ** 3).sum())(torch.tensor([1.0, 2.0])))
