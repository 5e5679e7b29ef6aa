/** Labels of the AI provider settings page (`/admin/ai-provider`, issue 29): the chat's LLM. */
export const aiProviderEn = {
  'aiProvider.title': 'AI provider',
  'aiProvider.intro':
    'The language model the chat answers with. Questions and the glossary content that answers them are sent to this provider.',
  'aiProvider.unreadable':
    'A stored secret of the AI provider (the API key or a custom header value) cannot be decrypted with the current encryption key: GLOSSARY_ENCRYPTION_KEY was changed or lost. Until it is entered again the chat is unavailable.',
  'aiProvider.stateConfigured': 'The chat can call this provider.',
  'aiProvider.stateNotConfigured': 'Not set up yet: give the base URL and a model, then save.',
  'aiProvider.chatSwitch': 'The chat itself is switched on and off in the search settings.',
  'aiProvider.provider.alpha_compatible': 'Alpha-compatible API (/chat/completions)',
  'aiProvider.modelsHint':
    'Lists the chat models of the base URL above (embedding and reranker models are left out). The saved key is sent only to the saved address; a key typed here is used for this list only.',
  'aiProvider.answers': 'Answers',
  'aiProvider.temperature': 'Temperature ({min}–{max}; lower is more literal)',
  'aiProvider.maxTokens': 'Longest answer in tokens ({min}–{max})',
  'aiProvider.saved': 'AI provider settings saved.',
  'aiProvider.savedSecretsCleared':
    'AI provider settings saved. The base URL changed, so the stored API key and header values were cleared rather than sent to the new address: enter them again where the page says “not configured”.',
  'aiProvider.testHint': 'Asks the saved model for a one-token answer with the saved settings.',
  'aiProvider.testOk': 'The connection works: {model} answered in {ms} ms.',
} as const

export const aiProviderKo: Record<keyof typeof aiProviderEn, string> = {
  'aiProvider.title': 'AI 공급자',
  'aiProvider.intro':
    '챗봇이 답할 때 쓰는 언어 모델입니다. 질문과 그에 답하는 용어집 내용이 이 공급자에게 전송됩니다.',
  'aiProvider.unreadable':
    'AI 공급자의 저장된 비밀 값(API 키나 사용자 지정 헤더 값)을 현재 암호화 키로 풀 수 없습니다. GLOSSARY_ENCRYPTION_KEY가 바뀌었거나 없어졌습니다. 다시 입력할 때까지 챗봇을 쓸 수 없습니다.',
  'aiProvider.stateConfigured': '챗봇이 이 공급자를 호출할 수 있습니다.',
  'aiProvider.stateNotConfigured': '아직 설정되지 않았습니다. 기본 URL과 모델을 입력하고 저장하세요.',
  'aiProvider.chatSwitch': '챗봇을 켜고 끄는 것은 검색 설정에서 합니다.',
  'aiProvider.provider.alpha_compatible': 'Alpha 호환 API (/chat/completions)',
  'aiProvider.modelsHint':
    '위 기본 URL의 대화 모델 목록을 불러옵니다(임베딩·재순위 모델은 뺍니다). 저장된 키는 저장된 주소로만 보내고, 여기 입력한 키는 이 목록에만 씁니다.',
  'aiProvider.answers': '답변',
  'aiProvider.temperature': '온도 ({min}–{max}, 낮을수록 일관된 답변)',
  'aiProvider.maxTokens': '답변 최대 토큰 수 ({min}–{max})',
  'aiProvider.saved': 'AI 공급자 설정을 저장했습니다.',
  'aiProvider.savedSecretsCleared':
    'AI 공급자 설정을 저장했습니다. 기본 URL이 바뀌어 저장된 API 키와 헤더 값을 새 주소로 보내지 않고 지웠습니다. “설정 안 됨”이라고 표시된 곳에 다시 입력하세요.',
  'aiProvider.testHint': '저장된 설정으로 저장된 모델에 토큰 하나짜리 답변을 요청합니다.',
  'aiProvider.testOk': '연결되었습니다. {model}이(가) {ms}ms 만에 답했습니다.',
} as const
