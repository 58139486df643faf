"""What is played: the config, who sits where (schedule), the players as policies, the
run's identity, the luck model, and replay of one match."""
