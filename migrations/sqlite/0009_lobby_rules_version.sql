-- The version of the game's rules a lobby's match plays by, chosen by its host (create_lobby, configure_lobby).
-- NULL for lobbies made before this column: the game's newest version. Keep postgres/0009_lobby_rules_version.sql
-- in step.
ALTER TABLE lobbies ADD COLUMN rules_version INTEGER;
