"""A tiny ledger: accounts, transfers, currency conversion, CSV import.

Written to give the search evaluation a real unittest run to read; some
of its tests fail on purpose (see ../README).
"""
import csv
import io
import time
import warnings

RATES = {("EUR", "USD"): 1.08, ("USD", "EUR"): 0.93, ("GBP", "EUR"): 1.17}


class InsufficientFunds(Exception):
    pass


class Account:
    def __init__(self, name, currency="EUR", balance=0):
        self.name = name
        self.currency = currency
        self.balance = balance
        self.history = []

    def deposit(self, amount):
        if amount <= 0:
            raise ValueError("deposit must be positive, got %r" % amount)
        self.balance += amount
        self.history.append(("deposit", amount))

    def withdraw(self, amount):
        if amount > self.balance:
            raise InsufficientFunds(
                "%s: balance %s, asked %s" % (self.name, self.balance, amount))
        self.balance -= amount
        self.history.append(("withdraw", amount))


def convert(amount, src, dst):
    if src == dst:
        return amount
    return round(amount * RATES[(src, dst)], 2)


def transfer(a, b, amount):
    a.withdraw(amount)
    b.deposit(convert(amount, a.currency, b.currency))


def interest(balance, rate, years):
    # Simple interest; the tests expect compound interest.
    return round(balance * (1 + rate * years), 2)


def parse_csv(text):
    rows = []
    for row in csv.DictReader(io.StringIO(text)):
        rows.append({"date": row["date"], "amount": float(row["amount"]),
                     "memo": row.get("memo", "")})
    return rows


def legacy_total(rows):
    warnings.warn("legacy_total() is deprecated; use total()",
                  DeprecationWarning, stacklevel=2)
    return total(rows)


def total(rows):
    return round(sum(r["amount"] for r in rows), 2)


def slow_reconcile(a, b):
    # Stands for a reconciliation that waits on a remote bank.
    time.sleep(5)
    return a.balance == b.balance
