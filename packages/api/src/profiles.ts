/**
 * Admin routes of backend profiles (document 2): processing configurations bound to a content schema, stored
 * per tenant with every version kept, beside the shipped catalog of `configs/profiles`.
 */
import { z } from 'zod';
import { route } from './contract';
import { BusinessRuleError, outage, PlainError, plain, tenantGuard } from './errors';
import { queryBoolean } from './params';
import { EmbeddingType, ProfileType } from './search';

/** The choice lists of the create fields, as the templates route lists them. */
export const ModelLoader = z.enum(['colbert', 'colpali', 'colqwen', 'xclip']);
export type ModelLoader = z.infer<typeof ModelLoader>;
export const ProcessType = z.enum(['direct_video', 'frame_based', 'video_chunks']);
export type ProcessType = z.infer<typeof ProcessType>;
export const DeploymentStatus = z.enum(['success', 'failed', 'already_deployed']);
export type DeploymentStatus = z.infer<typeof DeploymentStatus>;

/** Largest profile configuration a create or update may carry, as JSON. */
export const MAX_PROFILE_BYTES = 100_000;

const JsonObject = z.record(z.string(), z.unknown());
const tenantId = z.string().min(1).max(1000);

/** Refuses a body whose JSON is over MAX_PROFILE_BYTES (a stored version must fit one DynamoDB item). */
const withinSize = (value: unknown, ctx: z.RefinementCtx) => {
  const bytes = Buffer.byteLength(JSON.stringify(value));
  if (bytes > MAX_PROFILE_BYTES) {
    ctx.addIssue({
      code: 'custom',
      message: `The profile configuration is ${bytes} bytes as JSON, over the limit of ${MAX_PROFILE_BYTES}`,
    });
  }
};

/**
 * A create request. Choice fields are strings here: a value outside its list is a business rule the create
 * reports with every other broken rule at once (400), not a request-shape error (422).
 */
export const CreateProfileRequest = z
  .strictObject({
    profile_name: z.string().max(1000).meta({
      description: 'Unique within the tenant; at most 100 letters, digits, underscores or hyphens.',
    }),
    tenant_id: tenantId,
    type: z
      .string()
      .max(100)
      .default('video')
      .meta({ description: 'One of video, image, audio, document, code, wiki.' }),
    schema_name: z
      .string()
      .max(200)
      .meta({ description: 'Base schema: `configs/schemas/<schema_name>_schema.json` must exist.' }),
    embedding_model: z.string().max(300).meta({ description: '`org/model` or `model-name`.' }),
    embedding_type: z.string().max(100).meta({ description: '`multi_vector` or `single_vector`.' }),
    description: z.string().max(10_000).default(''),
    strategies: JsonObject.default({}).meta({
      description:
        'Each entry `{class, params?}` naming a strategy class the ingestion pipeline implements (see the templates route).',
    }),
    pipeline_config: JsonObject.default({}),
    model_specific: JsonObject.nullable().default(null),
    schema_config: JsonObject.default({}).meta({
      description: '`embedding_dim`, when given, is an integer from 1 to 100000.',
    }),
    model_loader: z.string().max(100).nullable().default(null).meta({
      description:
        'One of colbert, colpali, colqwen, xclip; required for every type but wiki. Without it the profile deploys but takes no uploads.',
    }),
    process_type: z
      .string()
      .max(100)
      .nullable()
      .default(null)
      .meta({ description: 'One of direct_video, frame_based, video_chunks; null: inferred at ingestion.' }),
    extra_config: JsonObject.default({}).meta({
      description:
        'Further keys stored beside the named fields: `extensions`, `text_fields`, `ranking_strategies`, `default_ranking_strategy`, `inference_services` are read by ingestion and search.',
    }),
    deploy_schema: z.boolean().default(false),
  })
  .superRefine(withinSize);
export type CreateProfileRequest = z.output<typeof CreateProfileRequest>;

/** Fields a create sets that a profile keeps: its stored configuration. */
export const PROFILE_FIELDS = [
  'profile_name',
  'tenant_id',
  'type',
  'schema_name',
  'embedding_model',
  'embedding_type',
  'description',
  'strategies',
  'pipeline_config',
  'model_specific',
  'schema_config',
  'model_loader',
  'process_type',
  'extra_config',
  'deploy_schema',
  'schema_deployed',
  'tenant_schema_name',
  'created_at',
  'updated_at',
  'version',
] as const;

export const ProfileCreated = z.object({
  profile_name: z.string(),
  tenant_id: z.string(),
  schema_deployed: z.boolean(),
  tenant_schema_name: z.string().nullable(),
  schema_deploy_error: z.string().nullable(),
  created_at: z.number().int().meta({ description: 'Epoch milliseconds.' }),
  version: z.literal(1),
});
export type ProfileCreated = z.infer<typeof ProfileCreated>;

export const ProfileTemplate = z.object({
  profile_name: z.string(),
  config: JsonObject.meta({ description: 'The shipped profile file as ingestion reads it.' }),
});

export const ProfileTemplates = z.object({
  tenant_id: z.string(),
  templates: z.array(ProfileTemplate),
  profile_types: z.array(ProfileType),
  embedding_types: z.array(EmbeddingType),
  model_loaders: z.array(ModelLoader),
  process_types: z.array(ProcessType),
  strategy_classes: z
    .array(z.string())
    .meta({ description: 'The strategy classes the ingestion pipeline implements.' }),
});
export type ProfileTemplates = z.infer<typeof ProfileTemplates>;

export const ProfileSummary = z.object({
  profile_name: z.string(),
  type: z.string(),
  schema_name: z.string(),
  embedding_model: z.string(),
  description: z.string(),
  schema_deployed: z.boolean(),
  created_at: z
    .number()
    .int()
    .meta({ description: 'The time of the list request, the same for every entry.' }),
});

export const ProfileList = z.object({
  profiles: z.array(ProfileSummary),
  total_count: z.number().int(),
  tenant_id: z.string(),
});
export type ProfileList = z.infer<typeof ProfileList>;

export const ProfileDetail = z
  .object({
    profile_name: z.string(),
    tenant_id: z.string(),
    type: ProfileType,
    schema_name: z.string(),
    embedding_model: z.string(),
    embedding_type: EmbeddingType,
    description: z.string(),
    strategies: JsonObject,
    pipeline_config: JsonObject,
    model_specific: JsonObject.nullable(),
    schema_config: JsonObject,
    model_loader: ModelLoader.nullable(),
    process_type: ProcessType.nullable(),
    extra_config: JsonObject,
    schema_deployed: z.boolean(),
    tenant_schema_name: z.string().nullable(),
    created_at: z.number().int().meta({ description: 'When version 1 was created (epoch ms).' }),
    updated_at: z.number().int().meta({ description: 'When this version was written (epoch ms).' }),
    version: z.number().int().min(1),
  })
  .meta({ id: 'Profile' });
export type ProfileDetail = z.infer<typeof ProfileDetail>;

/** An update: `tenant_id` and the mutable fields; any other field, immutable ones included, is dropped. */
export const UpdateProfileRequest = z
  .object({
    tenant_id: tenantId,
    description: z.string().max(10_000).optional(),
    strategies: JsonObject.optional(),
    pipeline_config: JsonObject.optional(),
    model_specific: JsonObject.nullable().optional(),
  })
  .superRefine(withinSize);
export type UpdateProfileRequest = z.output<typeof UpdateProfileRequest>;
export const MUTABLE_PROFILE_FIELDS = [
  'description',
  'strategies',
  'pipeline_config',
  'model_specific',
] as const;

export const ProfileUpdated = z.object({
  profile_name: z.string(),
  tenant_id: z.string(),
  updated_fields: z.array(z.string()),
  version: z.number().int(),
});
export type ProfileUpdated = z.infer<typeof ProfileUpdated>;

export const ProfileDeleted = z.object({
  profile_name: z.string(),
  tenant_id: z.string(),
  schema_deleted: z.boolean(),
  deleted_at: z.number().int(),
});
export type ProfileDeleted = z.infer<typeof ProfileDeleted>;

export const DeployProfileRequest = z.strictObject({
  tenant_id: tenantId,
  force: z.boolean().default(false),
});
export type DeployProfileRequest = z.output<typeof DeployProfileRequest>;

export const ProfileDeployment = z.object({
  profile_name: z.string(),
  tenant_id: z.string(),
  schema_name: z.string(),
  tenant_schema_name: z.string(),
  deployment_status: DeploymentStatus,
  deployed_at: z.number().int(),
  error_message: z.string().optional().meta({ description: 'Why the deploy failed (`failed` only).' }),
});
export type ProfileDeployment = z.infer<typeof ProfileDeployment>;

export const TemplatesFailed = z
  .object({
    detail: z.object({ error: z.literal('profile_templates_failed'), message: z.string() }),
  })
  .meta({ id: 'ProfileTemplatesFailed' });

const profilePath = z.object({ profile_name: z.string() });
const tenantQuery = z.object({ tenant_id: tenantId });
const unknownProfile = plain(
  "`Profile '<name>' not found for tenant '<tenant_id>'`, or the tenant is not registered.",
);
const validationFailed = {
  description:
    "Business rules (`{message: 'Profile validation failed', errors}`, every broken rule listed), or a malformed tenant id.",
  schema: z.union([BusinessRuleError, PlainError]),
};

export const createProfile = route({
  id: 'createProfile',
  group: 'profiles',
  method: 'POST',
  route: '/admin/profiles',
  summary: 'Create a backend profile for a tenant',
  description:
    "With `deploy_schema` the profile's schema is deployed too; a deploy that fails still answers 201, with `schema_deploy_error`.",
  body: CreateProfileRequest,
  responses: { 201: { description: 'The profile, at version 1.', schema: ProfileCreated } },
  errors: { ...tenantGuard, 400: validationFailed, 503: outage },
});

export const profileTemplates = route({
  id: 'profileTemplates',
  group: 'profiles',
  method: 'GET',
  route: '/admin/profile-templates',
  summary: 'The shipped profiles as templates, and the choice lists of the create fields',
  description: 'Shipped names the tenant created its own profile under are left out.',
  query: tenantQuery,
  responses: { 200: { description: 'Templates and choice lists.', schema: ProfileTemplates } },
  errors: {
    ...tenantGuard,
    500: {
      description: "The profile store could not be read (`error: 'profile_templates_failed'`).",
      schema: z.union([TemplatesFailed, PlainError]),
    },
    503: outage,
  },
});

export const listProfiles = route({
  id: 'listProfiles',
  group: 'profiles',
  method: 'GET',
  route: '/admin/profiles',
  summary: "The tenant's own profiles",
  query: tenantQuery,
  responses: {
    200: { description: "The tenant's stored profiles (not the shipped ones).", schema: ProfileList },
  },
  errors: { ...tenantGuard, 503: outage },
});

export const getProfile = route({
  id: 'getProfile',
  group: 'profiles',
  method: 'GET',
  route: '/admin/profiles/{profile_name}',
  summary: "One of the tenant's profiles, at its latest version",
  path: profilePath,
  query: tenantQuery,
  responses: { 200: { description: 'The profile.', schema: ProfileDetail } },
  errors: { ...tenantGuard, 404: unknownProfile, 503: outage },
});

export const updateProfile = route({
  id: 'updateProfile',
  group: 'profiles',
  method: 'PUT',
  route: '/admin/profiles/{profile_name}',
  summary: "Update a profile's mutable fields (a new version)",
  description:
    'Mutable: `description`, `strategies`, `pipeline_config`, `model_specific`. Other fields are dropped. Concurrent updates each get their own version.',
  path: profilePath,
  body: UpdateProfileRequest,
  responses: { 200: { description: 'What changed and the new version.', schema: ProfileUpdated } },
  errors: {
    ...tenantGuard,
    400: {
      description:
        "`No fields to update provided`, `{message: 'Invalid update fields', errors}` for bad `strategies`, or a malformed tenant id.",
      schema: z.union([BusinessRuleError, PlainError]),
    },
    404: unknownProfile,
    503: outage,
  },
});

export const deleteProfile = route({
  id: 'deleteProfile',
  group: 'profiles',
  method: 'DELETE',
  route: '/admin/profiles/{profile_name}',
  summary: 'Delete a profile (every version), and optionally its schema',
  path: profilePath,
  query: z.object({ tenant_id: tenantId, delete_schema: queryBoolean(false) }),
  responses: { 200: { description: 'The profile is gone.', schema: ProfileDeleted } },
  errors: {
    ...tenantGuard,
    404: unknownProfile,
    409: plain(
      "`Schema '<schema_name>' is used by profile(s): <names>` (with `delete_schema=true`), or the tenant is marked deleted.",
    ),
    500: plain(
      'With `delete_schema=true`: dropping the schema would also drop deployed schemas the registry cannot reconstruct; nothing was deleted.',
    ),
    503: outage,
  },
});

export const deployProfile = route({
  id: 'deployProfile',
  group: 'profiles',
  method: 'POST',
  route: '/admin/profiles/{profile_name}/deploy',
  summary: "Deploy a profile's schema for the tenant",
  description:
    "The profile is the tenant's own, else the shipped one of that name. A deploy that fails answers 200 with `deployment_status: 'failed'` and `error_message`.",
  path: profilePath,
  body: DeployProfileRequest,
  responses: { 200: { description: 'How the deploy went.', schema: ProfileDeployment } },
  errors: { ...tenantGuard, 404: unknownProfile, 503: outage },
});
