# The PyTorch text-classification tutorial (AG_NEWS with nn.EmbeddingBag), on a tiny hand-made
# corpus: a vocabulary, a collate_fn that concatenates the token ids of a batch and computes each
# text's offset, the TextClassificationModel, and the tutorial's train / evaluate loops
# (SGD lr=5, StepLR, clip_grad_norm_). The classifier's weight is weight-normalised.
import time

import torch
from torch import nn
from torch.utils.data import DataLoader

torch.manual_seed(0)

train_iter = [
    (3, "stocks rally as markets rise on strong earnings"),
    (2, "the team wins the final match of the season"),
    (4, "new phone chip makes laptops faster"),
    (1, "leaders meet to talk about the border war"),
    (3, "oil prices fall and shares drop"),
    (2, "striker scores twice as the club wins"),
    (4, "software update brings a faster chip to phones"),
    (1, "the president signs a peace deal with leaders"),
    (3, "the bank raises rates as markets fall"),
    (2, "coach praises the team after the match"),
    (4, "scientists build a quantum chip"),
    (1, "war talks stall at the border"),
]
test_iter = [(3, "shares rise on earnings"), (2, "the club wins the match"), (4, "a faster phone chip"),
             (1, "peace talks at the border")]


def tokenizer(text):
    return text.lower().split()


vocab = {"<unk>": 0}
for _, text in train_iter:
    for token in tokenizer(text):
        vocab.setdefault(token, len(vocab))
print(len(vocab), [vocab.get(t, 0) for t in tokenizer("here is the an example")])


def text_pipeline(x):
    return [vocab.get(token, 0) for token in tokenizer(x)]


def label_pipeline(x):
    return int(x) - 1


def collate_batch(batch):
    label_list, text_list, offsets = [], [], [0]
    for _label, _text in batch:
        label_list.append(label_pipeline(_label))
        processed_text = torch.tensor(text_pipeline(_text), dtype=torch.int64)
        text_list.append(processed_text)
        offsets.append(processed_text.size(0))
    label_list = torch.tensor(label_list, dtype=torch.int64)
    offsets = torch.tensor(offsets[:-1]).cumsum(dim=0)
    text_list = torch.cat(text_list)
    return label_list, text_list, offsets


labels, text, offsets = collate_batch(train_iter[:3])
print(labels, text, offsets)


class TextClassificationModel(nn.Module):
    def __init__(self, vocab_size, embed_dim, num_class):
        super().__init__()
        self.embedding = nn.EmbeddingBag(vocab_size, embed_dim, sparse=False)
        self.fc = nn.utils.parametrizations.weight_norm(nn.Linear(embed_dim, num_class))
        self.init_weights()

    def init_weights(self):
        initrange = 0.5
        self.embedding.weight.data.uniform_(-initrange, initrange)
        self.fc.bias.data.zero_()

    def forward(self, text, offsets):
        embedded = self.embedding(text, offsets)
        return self.fc(embedded)


num_class = len(set([label for (label, text) in train_iter]))
vocab_size = len(vocab)
emsize = 8
model = TextClassificationModel(vocab_size, emsize, num_class)
print(model)
print(list(model.state_dict().keys()))
print(model.fc.weight.grad_fn)
print(model(text, offsets).shape)


def train(dataloader):
    model.train()
    total_acc, total_count = 0, 0
    for idx, (label, text, offsets) in enumerate(dataloader):
        optimizer.zero_grad()
        predicted_label = model(text, offsets)
        loss = criterion(predicted_label, label)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1)
        optimizer.step()
        total_acc += (predicted_label.argmax(1) == label).sum().item()
        total_count += label.size(0)
    return total_acc / total_count, loss.item()


def evaluate(dataloader):
    model.eval()
    total_acc, total_count = 0, 0
    with torch.no_grad():
        for idx, (label, text, offsets) in enumerate(dataloader):
            predicted_label = model(text, offsets)
            total_acc += (predicted_label.argmax(1) == label).sum().item()
            total_count += label.size(0)
    return total_acc / total_count


EPOCHS = 6
LR = 5
BATCH_SIZE = 4
criterion = torch.nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=LR)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1.0, gamma=0.5)
total_accu = None
train_dataloader = DataLoader(train_iter, batch_size=BATCH_SIZE, shuffle=True, collate_fn=collate_batch)
test_dataloader = DataLoader(test_iter, batch_size=BATCH_SIZE, shuffle=False, collate_fn=collate_batch)
for epoch in range(1, EPOCHS + 1):
    epoch_start_time = time.time()
    accu_train, last_loss = train(train_dataloader)
    accu_val = evaluate(test_dataloader)
    if total_accu is not None and total_accu > accu_val:
        scheduler.step()
    else:
        total_accu = accu_val
    print(f"| end of epoch {epoch:3d} | train accuracy {accu_train:8.3f} | loss {last_loss:8.4f} | "
          f"valid accuracy {accu_val:8.3f} | lr {scheduler.get_last_lr()[0]:.4f}")

ag_news_label = {1: "World", 2: "Sports", 3: "Business", 4: "Sci/Tec"}


def predict(text, text_pipeline):
    with torch.no_grad():
        text = torch.tensor(text_pipeline(text))
        output = model(text, torch.tensor([0]))
        return output.argmax(1).item() + 1


ex_text_str = "the club wins as the striker scores"
print("This is a %s news" % ag_news_label[predict(ex_text_str, text_pipeline)])

# the bag forms the tutorial's docs show: 2-D input, mode='max', per_sample_weights, padding_idx
bag = nn.EmbeddingBag(10, 3, mode="sum", padding_idx=2)
print(bag)
input = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9])
offsets = torch.tensor([0, 4])
print(bag(input, offsets, per_sample_weights=torch.linspace(0.1, 0.8, 8)))
print(nn.EmbeddingBag(10, 3, mode="max")(torch.tensor([[1, 2, 4], [4, 3, 9]])))
try:
    bag(input, torch.tensor([1, 4]))
except RuntimeError as e:
    print(e)
