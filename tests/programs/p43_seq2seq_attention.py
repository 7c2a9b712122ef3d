# "NLP From Scratch: Translation with a Sequence to Sequence Network and Attention", shrunk to a
# toy task (reverse a digit sequence): nn.Embedding + nn.GRU(batch_first=True) encoder, a
# Bahdanau-attention GRU decoder with torch.bmm and F.softmax, teacher forcing, NLLLoss, and
# greedy decoding under torch.no_grad with topk / squeeze().detach().
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import optim
from torch.utils.data import DataLoader, RandomSampler, TensorDataset

SOS_token, EOS_token = 0, 1
MAX_LENGTH = 5
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(3)

# pairs: a digit sequence (tokens 2..7) and its reverse, each ending with EOS
src = torch.randint(2, 8, (24, MAX_LENGTH - 1))
input_ids = torch.cat([src, torch.full((24, 1), EOS_token)], dim=1)
target_ids = torch.cat([src.flip(1), torch.full((24, 1), EOS_token)], dim=1)
print(input_ids[:2], target_ids[:2], sep="\n")
train_data = TensorDataset(input_ids.to(device), target_ids.to(device))
train_dataloader = DataLoader(train_data, sampler=RandomSampler(train_data), batch_size=8)


class EncoderRNN(nn.Module):
    def __init__(self, input_size, hidden_size, dropout_p=0.1):
        super(EncoderRNN, self).__init__()
        self.hidden_size = hidden_size
        self.embedding = nn.Embedding(input_size, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size, batch_first=True)
        self.dropout = nn.Dropout(dropout_p)

    def forward(self, input):
        embedded = self.dropout(self.embedding(input))
        output, hidden = self.gru(embedded)
        return output, hidden


class BahdanauAttention(nn.Module):
    def __init__(self, hidden_size):
        super(BahdanauAttention, self).__init__()
        self.Wa = nn.Linear(hidden_size, hidden_size)
        self.Ua = nn.Linear(hidden_size, hidden_size)
        self.Va = nn.Linear(hidden_size, 1)

    def forward(self, query, keys):
        scores = self.Va(torch.tanh(self.Wa(query) + self.Ua(keys)))
        scores = scores.squeeze(2).unsqueeze(1)
        weights = F.softmax(scores, dim=-1)
        context = torch.bmm(weights, keys)
        return context, weights


class AttnDecoderRNN(nn.Module):
    def __init__(self, hidden_size, output_size, dropout_p=0.1):
        super(AttnDecoderRNN, self).__init__()
        self.embedding = nn.Embedding(output_size, hidden_size)
        self.attention = BahdanauAttention(hidden_size)
        self.gru = nn.GRU(2 * hidden_size, hidden_size, batch_first=True)
        self.out = nn.Linear(hidden_size, output_size)
        self.dropout = nn.Dropout(dropout_p)

    def forward(self, encoder_outputs, encoder_hidden, target_tensor=None):
        batch_size = encoder_outputs.size(0)
        decoder_input = torch.empty(batch_size, 1, dtype=torch.long, device=device).fill_(SOS_token)
        decoder_hidden = encoder_hidden
        decoder_outputs, attentions = [], []
        for i in range(MAX_LENGTH):
            decoder_output, decoder_hidden, attn_weights = self.forward_step(decoder_input, decoder_hidden,
                                                                             encoder_outputs)
            decoder_outputs.append(decoder_output)
            attentions.append(attn_weights)
            if target_tensor is not None:
                decoder_input = target_tensor[:, i].unsqueeze(1)  # teacher forcing
            else:
                _, topi = decoder_output.topk(1)
                decoder_input = topi.squeeze(-1).detach()  # its own prediction as the next input
        decoder_outputs = torch.cat(decoder_outputs, dim=1)
        decoder_outputs = F.log_softmax(decoder_outputs, dim=-1)
        attentions = torch.cat(attentions, dim=1)
        return decoder_outputs, decoder_hidden, attentions

    def forward_step(self, input, hidden, encoder_outputs):
        embedded = self.dropout(self.embedding(input))
        query = hidden.permute(1, 0, 2)
        context, attn_weights = self.attention(query, encoder_outputs)
        input_gru = torch.cat((embedded, context), dim=2)
        output, hidden = self.gru(input_gru, hidden)
        return self.out(output), hidden, attn_weights


hidden_size, n_words = 16, 8
encoder = EncoderRNN(n_words, hidden_size).to(device)
decoder = AttnDecoderRNN(hidden_size, n_words).to(device)
print(encoder)
print(decoder)
encoder_optimizer = optim.Adam(encoder.parameters(), lr=0.01)
decoder_optimizer = optim.Adam(decoder.parameters(), lr=0.01)
criterion = nn.NLLLoss()

for epoch in range(1, 5):
    total_loss = 0
    for input_tensor, target_tensor in train_dataloader:
        encoder_optimizer.zero_grad()
        decoder_optimizer.zero_grad()
        encoder_outputs, encoder_hidden = encoder(input_tensor)
        decoder_outputs, _, _ = decoder(encoder_outputs, encoder_hidden, target_tensor)
        loss = criterion(decoder_outputs.view(-1, decoder_outputs.size(-1)), target_tensor.view(-1))
        loss.backward()
        encoder_optimizer.step()
        decoder_optimizer.step()
        total_loss += loss.item()
    if epoch % 2 == 0:
        print(f"epoch {epoch} loss {total_loss / len(train_dataloader):.4f}")

encoder.eval()
decoder.eval()
with torch.no_grad():
    encoder_outputs, encoder_hidden = encoder(input_ids[:3])
    print(encoder_outputs.shape, encoder_hidden.shape)
    decoder_outputs, decoder_hidden, attentions = decoder(encoder_outputs, encoder_hidden)
    _, topi = decoder_outputs.topk(1)
    decoded_ids = topi.squeeze()
    print(decoded_ids)
    print(decoded_ids.argmax(-1), decoder_outputs.argmax(-1))
    print(attentions.shape, attentions.sum(-1))
    words = [[idx.item() for idx in row if idx.item() != EOS_token] for row in decoded_ids]
    print(words)
    print(target_ids[:3])
