-- Custom migration: drizzle-kit does not manage extensions. pg_trgm backs the trigram index that
-- serves GET /contacts?search= (a case-insensitive substring of the email). It is a trusted
-- extension (PostgreSQL 13+), so the database owner may create it without superuser rights.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
