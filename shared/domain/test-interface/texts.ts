/** The exact texts of the test interface (SPEC §7; the reference product's wording, "sic" included). */
export const TEXTS = {
  typeMissing: 'message type missing or invalid',
  typeUnsupported: 'message type is unsupported',
  destinationDisabled: (id: string) => `Destination with id ${id} is disabled`,
  sourceDisabled: (id: string) => `Source with ${id} is disabled`,
  transformationNotFound: 'Transformation VersionID not found',
  userStageAborted: 'error encountered in user_transformation stage. Aborting.',
  destStageAborted: 'error encountered in dest_transformation stage. Aborting.',
  filtered: 'the transformation returned no event for this message',
  ruleStopped: (rule: string) => `rule ${rule} of the connection stopped this message`,
  rulesAborted: 'error encountered in rules stage. Aborting.',
  serverDelivered: (type: string) => `destination type ${type} is delivered by the data plane's own server; the test interface cannot send to it`,
  notConnected: (id: string) => `source ${id} is not connected to any destination`,
} as const;

export const SUPPORTED_TYPES: ReadonlySet<string> = new Set(['identify', 'track', 'page', 'screen', 'group', 'alias']);
