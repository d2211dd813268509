-- Installation contexts and user installs: an app's default install
-- settings by integration type (integration_types_config's
-- oauth2_install_params, a JSON object keyed "0"/"1" of {scopes,
-- permissions}), whether discovery is enabled, and the apps users
-- installed to their accounts. grant_id is the OAuth2 grant that
-- installed one (0: the admin API); revoking that grant uninstalls it.
ALTER TABLE applications ADD COLUMN install_params TEXT NOT NULL DEFAULT '{}';
ALTER TABLE applications ADD COLUMN discoverable INTEGER NOT NULL DEFAULT 0;

CREATE TABLE user_installations (
    user_id        BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    application_id BIGINT NOT NULL REFERENCES applications (id) ON DELETE CASCADE,
    scopes         TEXT   NOT NULL,
    grant_id       BIGINT NOT NULL DEFAULT 0,
    created_at     BIGINT NOT NULL,
    PRIMARY KEY (user_id, application_id)
);
CREATE INDEX user_installations_by_application ON user_installations (application_id);
CREATE INDEX user_installations_by_grant ON user_installations (grant_id);
