# "NLP From Scratch: Classifying Names with a Character-Level RNN": one-hot letters with
# torch.zeros + index, a hand-written RNN cell (torch.cat, i2h / h2o, LogSoftmax), NLLLoss and a
# manual SGD step over p.data, topk on the output, then the same with nn.RNN.
import random
import string
import torch
import torch.nn as nn

all_letters = string.ascii_letters + " .,;'"
n_letters = len(all_letters)
category_lines = {
    "English": ["Smith", "Brown", "Taylor", "Wilson", "Walker"],
    "French": ["Dubois", "Moreau", "Laurent", "Girard", "Bonnet"],
    "Japanese": ["Sato", "Suzuki", "Takahashi", "Tanaka", "Ito"],
}
all_categories = list(category_lines)
n_categories = len(all_categories)


def letterToIndex(letter):
    return all_letters.find(letter)


def letterToTensor(letter):
    tensor = torch.zeros(1, n_letters)
    tensor[0][letterToIndex(letter)] = 1
    return tensor


def lineToTensor(line):
    tensor = torch.zeros(len(line), 1, n_letters)
    for li, letter in enumerate(line):
        tensor[li][0][letterToIndex(letter)] = 1
    return tensor


print(n_letters, letterToTensor('J'))
print(lineToTensor('Jones').size(), lineToTensor('Jones').sum(dim=2).view(-1))


class RNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super(RNN, self).__init__()
        self.hidden_size = hidden_size
        self.i2h = nn.Linear(input_size + hidden_size, hidden_size)
        self.h2o = nn.Linear(input_size + hidden_size, output_size)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, input, hidden):
        combined = torch.cat((input, hidden), 1)
        hidden = self.i2h(combined)
        output = self.softmax(self.h2o(combined))
        return output, hidden

    def initHidden(self):
        return torch.zeros(1, self.hidden_size)


torch.manual_seed(0)
random.seed(0)
n_hidden = 32
rnn = RNN(n_letters, n_hidden, n_categories)
print(rnn)
output, next_hidden = rnn(letterToTensor('A'), rnn.initHidden())
print(output, next_hidden.shape)


def categoryFromOutput(output):
    top_n, top_i = output.topk(1)
    category_i = top_i[0].item()
    return all_categories[category_i], category_i


print(categoryFromOutput(output))


def randomTrainingExample():
    category = random.choice(all_categories)
    line = random.choice(category_lines[category])
    category_tensor = torch.tensor([all_categories.index(category)], dtype=torch.long)
    return category, line, category_tensor, lineToTensor(line)


criterion = nn.NLLLoss()
learning_rate = 0.005


def train(category_tensor, line_tensor):
    hidden = rnn.initHidden()
    rnn.zero_grad()
    for i in range(line_tensor.size()[0]):
        output, hidden = rnn(line_tensor[i], hidden)
    loss = criterion(output, category_tensor)
    loss.backward()
    for p in rnn.parameters():
        p.data.add_(p.grad.data, alpha=-learning_rate)
    return output, loss.item()


current_loss = 0
for it in range(1, 201):
    category, line, category_tensor, line_tensor = randomTrainingExample()
    output, loss = train(category_tensor, line_tensor)
    current_loss += loss
    if it % 50 == 0:
        guess, guess_i = categoryFromOutput(output)
        correct = '✓' if guess == category else '✗ (%s)' % category
        print('%d %d%% %.4f %s / %s %s' % (it, it / 200 * 100, loss, line, guess, correct))
print(round(current_loss / 200, 4))


def evaluate(line_tensor):
    hidden = rnn.initHidden()
    for i in range(line_tensor.size()[0]):
        output, hidden = rnn(line_tensor[i], hidden)
    return output


def predict(input_line, n_predictions=2):
    print('\n> %s' % input_line)
    with torch.no_grad():
        output = evaluate(lineToTensor(input_line))
        topv, topi = output.topk(n_predictions, 1, True)
        for i in range(n_predictions):
            value = topv[0][i].item()
            category_index = topi[0][i].item()
            print('(%.2f) %s' % (value, all_categories[category_index]))


predict('Dovesky')
predict('Satoshi')

confusion = torch.zeros(n_categories, n_categories)
for category in all_categories:
    for line in category_lines[category]:
        guess, guess_i = categoryFromOutput(evaluate(lineToTensor(line)))
        confusion[all_categories.index(category)][guess_i] += 1
for i in range(n_categories):
    confusion[i] = confusion[i] / confusion[i].sum()
print(confusion)

# the same idea with nn.RNN over the whole sequence
class CharRNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super().__init__()
        self.rnn = nn.RNN(input_size, hidden_size)
        self.h2o = nn.Linear(hidden_size, output_size)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, line_tensor):
        rnn_out, hidden = self.rnn(line_tensor)
        return self.softmax(self.h2o(hidden[0]))


model = CharRNN(n_letters, 16, n_categories)
print(model)
out = model(lineToTensor('Tanaka'))
print(out.shape, round(out.exp().sum().item(), 4))
loss = criterion(out, torch.tensor([2]))
loss.backward()
print(loss.grad_fn, model.rnn.weight_hh_l0.grad.shape, model.rnn.bias_ih_l0.grad.abs().sum() > 0)
print([n for n, _ in model.named_parameters()])
