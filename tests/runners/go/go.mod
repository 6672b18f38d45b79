module example.com/triage

go 1.19
